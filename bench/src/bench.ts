import { measureLink } from './link.js';
console.log(JSON.stringify(await measureLink({ warmupMs: 500, streamMs: 2000, roundTripMs: 1000 })));

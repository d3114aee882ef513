/** Your own RDMA code on the emulated fabric (issue 13): the API apps are written against, their bundler and their sandbox. */
export type * from './api.js';
export * from './bundle.js';
export * from './sandbox.js';

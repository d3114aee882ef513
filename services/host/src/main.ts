#!/usr/bin/env node
/**
 * One server (DESIGN §2): a member process hosting a host node — its RDMA NIC and workload —
 * configured by the environment (see @rocelab/runtime member-main).
 */
import { runMemberMain } from '@rocelab/runtime';

await runMemberMain('host');

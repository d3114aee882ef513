/**
 * Names of links and link directions as they appear in logs, Hello messages, grants and
 * reports: a link is `a-node:port--b-node:port` in the topology's a/b order; a direction is
 * `from-node:port>to-node:port`.
 */
import type { Endpoint, LinkSpec } from '@rocelab/topology';

export const endpointName = (e: Endpoint): string => `${e.node}:${e.port}`;

export const linkName = (link: LinkSpec): string => `${endpointName(link.a)}--${endpointName(link.b)}`;

export const directionName = (from: Endpoint, to: Endpoint): string => `${endpointName(from)}>${endpointName(to)}`;

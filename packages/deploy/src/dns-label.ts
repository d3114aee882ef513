/** A DNS-1123 label (RFC 1123): what a namespace, a pod's hostname and a Service name must be. */
export function isDns1123Label(name: string): boolean {
  return name.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name);
}

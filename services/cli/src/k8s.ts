/**
 * `rocelab k8s FILE [--workers K] [--namespace N] …`: the Kubernetes manifests of a topology as
 * one multi-document YAML on stdout (@rocelab/deploy/k8s builds and validates them).
 */
import { K8sError, k8sYaml, type K8sYamlOptions } from '@rocelab/deploy/k8s';
import { loadTopologyFile } from '@rocelab/topology';

export function k8sCommand(file: string, o: K8sYamlOptions): number {
  const pod = loadTopologyFile(file);
  try {
    process.stdout.write(k8sYaml(file, pod, o));
    return 0;
  } catch (err) {
    if (!(err instanceof K8sError)) throw err;
    process.stderr.write(`rocelab k8s: ${err.message}\n`);
    return 2;
  }
}

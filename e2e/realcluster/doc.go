// Package realcluster runs talops end to end against a real Talos v1.14.1 cluster of the
// harness in ../harness: three control planes and a worker, each a real machined with a real
// kubelet and control plane, their network namespaces linked by the harness's bridge, etcd
// formed by Talos itself, and every reboot talops asks for done by the node (the harness
// boots it again with its state kept and a new boot ID). The tests are built with the tags
// realtalos, k8s and cluster and run one at a time by .ci/run; without a usable harness they
// fail, they never skip.
package realcluster

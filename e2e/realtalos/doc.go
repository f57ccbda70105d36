// Package realtalos runs talops end to end against real Talos v1.14.1 nodes: the real
// machined and apid of the harness in ../harness, each node in its own sandbox on
// a loopback address, with a real etcd. The tests are built with the tag realtalos and run
// by .ci/run; without a usable harness they fail, they never skip.
package realtalos

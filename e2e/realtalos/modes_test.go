//go:build realtalos && !k8s

package realtalos

// harnessModes are the harness's build modes the tests need: a real etcd.
var harnessModes = []string{"ETCD=1"}

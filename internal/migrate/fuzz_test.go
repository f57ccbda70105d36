package migrate_test

import (
	"testing"

	"github.com/talops/talops/internal/migrate"
	"github.com/talops/talops/internal/testlab/hostile"
)

// FuzzRewrite: no patch makes the migration panic, and whatever it writes, migrating it
// again changes nothing.
func FuzzRewrite(f *testing.F) {
	for _, p := range labInput(f).Patches {
		f.Add(p.Data, true)
	}

	f.Add([]byte("cluster:\n  apiServer:\n    extraArgs:\n      oidc-issuer-url: https://id.example\n      oidc-client-id: k8s\n"), true)
	f.Add([]byte("machine:\n  install:\n    disk: /dev/sda\n  kubelet:\n    nodeIP:\n      validSubnets: [10.0.0.0/8]\n"), false)
	f.Add([]byte("- op: add\n  path: /machine/nodeLabels\n  value: {a: b}\n"), false)
	f.Add([]byte("- op: add\n  path: /machine/install/diskSelector\n  value: {model: 'A*'}\n- op: remove\n  path: /machine/install/disk\n"), false)
	f.Add([]byte("- op: replace\n  path: /cluster/apiServer/extraArgs/feature-gates\n  value: Foo=true\n- op: remove\n  path: /machine/kubelet/extraArgs/x~1y\n"), true)
	// RFC 6902: an append to a list, the switch that moves to the control planes' first
	// patch, a control-plane taint of a node's own, an operation without a strategic-merge form.
	f.Add([]byte("- op: add\n  path: /machine/network/nameservers/-\n  value: 10.0.0.1\n- op: add\n  path: /cluster/allowSchedulingOnControlPlanes\n  value: true\n"), true)
	f.Add([]byte("- op: add\n  path: /machine/nodeTaints\n  value:\n    node-role.kubernetes.io/control-plane: :PreferNoSchedule\n- op: add\n  path: /machine/install/extraKernelArgs\n  value: [net.ifnames=0]\n"), true)
	f.Add([]byte("- op: move\n  from: /machine/nodeLabels/a\n  path: /machine/nodeLabels/b\n- op: test\n  path: /machine/type\n  value: worker\n"), false)
	f.Add([]byte("machine: &a\n  nodeLabels: *a\n"), false)
	f.Add([]byte("machine:\n  kubelet:\n    extraConfig: "+hostile.AliasBomb(9)+"\n"), false)
	f.Add([]byte("machine:\n  install:\n    diskSelector:\n      size: '>= 1TB'\n      type: ssd\n"), false)
	f.Add([]byte("cluster:\n  allowSchedulingOnControlPlanes: true\n  discovery:\n    enabled: true\n    registries:\n      kubernetes:\n        disabled: true\n      service:\n        endpoint: https://d.example/\n"), true)
	f.Add([]byte("cluster:\n  network:\n    dnsDomain: lab.internal\n    podSubnets: [10.200.0.0/16]\n    cni:\n      name: flannel\n      flannel:\n        extraArgs: [--iface=eth1]\n"), true)

	f.Fuzz(func(t *testing.T, patch []byte, controlPlane bool) {
		hostile.Bounded(t, func() {
			p := migrate.Patch{Path: "p.yaml", Data: patch, Workers: 1}
			if controlPlane {
				p = migrate.Patch{Path: "p.yaml", Data: patch, ControlPlanes: 1}
			}

			in := migrate.Input{From: "v1.13", Target: "v1.14", Talops: []byte("configVersion: v1.13\n"), Patches: []migrate.Patch{p}, ControlPlanes: p.ControlPlanes, Workers: p.Workers}

			res, err := migrate.Rewrite(in)
			if err != nil {
				return
			}

			in.From, in.Talops = "v1.14", []byte("configVersion: v1.14\n")

			for _, file := range res.Files {
				if file.Path == "p.yaml" {
					in.Patches[0].Data = file.Data
				}
			}

			again, err := migrate.Rewrite(in)
			if err != nil {
				t.Fatalf("the migrated patch does not migrate again: %v\n%s", err, in.Patches[0].Data)
			}

			if again.Changed() {
				t.Fatalf("migrating twice changed the patch again:\n%s\nthen:\n%s", in.Patches[0].Data, again.Files[0].Data)
			}
		})
	})
}

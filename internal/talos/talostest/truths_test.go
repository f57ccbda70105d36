package talostest_test

import (
	"context"
	"regexp"
	"slices"
	"testing"

	"github.com/cosi-project/runtime/pkg/resource/meta"
	"github.com/cosi-project/runtime/pkg/safe"
	"github.com/siderolabs/talos/pkg/machinery/api/common"
	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/resources/cluster"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/talops/talops/internal/talos/talostest"
)

func TestEtcd_AWorkerSaysItIsNoControlPlane(t *testing.T) {
	_, c := started(t, talostest.Node{Version: "v1.14.1"})

	for call, want := range map[string]string{
		"EtcdMemberList": "member list is only available on control plane nodes",
		"EtcdStatus":     "etcd status is only available on control plane nodes",
	} {
		err := calls[call](context.Background(), c)
		if status.Code(err) != codes.Unimplemented || status.Convert(err).Message() != want {
			t.Errorf("%s: %v, want Unimplemented %q", call, err, want)
		}
	}
}

func TestPull_AnswersTheNamePinnedToADigest(t *testing.T) {
	tests := []struct {
		name, ref string
		want      *regexp.Regexp
	}{
		{name: "a tag is replaced by a digest", ref: "factory.talos.dev/installer/abc:v1.14.1", want: regexp.MustCompile(`^factory\.talos\.dev/installer/abc@sha256:[0-9a-f]{64}$`)},
		{name: "a registry port is not a tag", ref: "registry.local:5000/installer:v1.14.1", want: regexp.MustCompile(`^registry\.local:5000/installer@sha256:[0-9a-f]{64}$`)},
		{name: "a digest stays", ref: "ghcr.io/siderolabs/installer@sha256:" + newSchematic, want: regexp.MustCompile(`^ghcr\.io/siderolabs/installer@sha256:` + newSchematic + `$`)},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			s, c := started(t, talostest.Node{Version: "v1.13.9"})

			stream, err := c.ImageClient.Pull(context.Background(), &machine.ImageServicePullRequest{Containerd: &common.ContainerdInstance{Namespace: common.ContainerdNamespace_NS_SYSTEM}, ImageRef: tt.ref})
			if err != nil {
				t.Fatal(err)
			}

			resp, err := stream.Recv()
			if err != nil {
				t.Fatal(err)
			}

			if got := resp.GetName(); !tt.want.MatchString(got) {
				t.Errorf("name %q, want %s", got, tt.want)
			}

			if !slices.Equal(s.Pulls(), []string{tt.ref}) {
				t.Errorf("pulls %q", s.Pulls())
			}
		})
	}
}

func TestResourceDefinitions_ResolveTheNamesTalosctlTakes(t *testing.T) {
	ctx := context.Background()
	_, c := started(t, talostest.Node{Name: "w1", Version: "v1.14.1"})

	list, err := safe.StateListAll[*meta.ResourceDefinition](ctx, c.COSI)
	if err != nil {
		t.Fatal(err)
	}

	// As talosctl's ResolveResourceKind: a name matches a definition's type or alias.
	resolve := func(name string) *meta.ResourceDefinition {
		for rd := range list.All() {
			if rd.TypedSpec().Type == name || slices.Contains(rd.TypedSpec().AllAliases, name) {
				return rd
			}
		}

		return nil
	}

	for name, want := range map[string]struct {
		namespace string
		sensitive bool
	}{
		"machineconfig":      {namespace: "config", sensitive: true},
		"machinestatus":      {namespace: "runtime"},
		"extensionstatus":    {namespace: "runtime"},
		"members":            {namespace: "cluster"},
		"machinetype":        {namespace: "config"},
		"hostnamestatus":     {namespace: "network"},
		"resourcedefinition": {namespace: "meta"},
	} {
		rd := resolve(name)
		if rd == nil {
			t.Errorf("%s: no resource definition", name)

			continue
		}

		if got := rd.TypedSpec(); got.DefaultNamespace != want.namespace || (got.Sensitivity == meta.Sensitive) != want.sensitive {
			t.Errorf("%s: namespace %s, sensitivity %s", name, got.DefaultNamespace, got.Sensitivity)
		}
	}

	members, err := safe.StateListAll[*cluster.Member](ctx, c.COSI)
	if err != nil || members.Len() != 1 || members.Get(0).TypedSpec().Hostname != "w1" {
		t.Errorf("members: %v %v", members, err)
	}
}

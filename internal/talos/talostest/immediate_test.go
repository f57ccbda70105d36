package talostest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/talops/talops/internal/talos/talostest"
)

func TestNoReboot113_TakesOnlyTheFieldsTalos113AppliesLive(t *testing.T) {
	features := "  features:\n    kubePrism:\n      enabled: true\n      port: 7445\n"

	tests := []struct {
		name string
		// running is the node's config (baseConfig when nil), next the one applied.
		running, next []byte
		live          bool
	}{
		{name: "machine.sysctls", next: sysctlChange, live: true},
		{name: "machine.kubelet", next: withMachine("  kubelet:\n    extraArgs:\n      max-pods: \"250\"\n"), live: true},
		{name: "machine.install", next: withMachine("  install:\n    image: factory.talos.dev/installer/abc:v1.13.9\n"), live: true},
		{name: "machine.nodeLabels", next: withMachine("  nodeLabels:\n    zone: a\n"), live: true},
		{name: "cluster", next: []byte(strings.Replace(baseConfig, "clusterName: fake", "clusterName: renamed", 1)), live: true},
		{name: "machine.env", next: envChange},
		{name: "machine.files", next: withMachine("  files:\n    - path: /var/etc/motd\n      permissions: 0o644\n      op: create\n      content: hello\n")},
		{name: "machine.features.diskQuotaSupport", running: withMachine(features), next: withMachine(features + "    diskQuotaSupport: true\n")},
		{name: "machine.features.kubePrism next to other features", running: withMachine(features), next: withMachine(strings.Replace(features, "7445", "7446", 1)), live: true},
		// Talos 1.13 copies the live features only when both configs have a features section.
		{name: "machine.features.kubePrism where there were no features", next: withMachine(features)},
		// Only the v1alpha1 documents are compared.
		{name: "another document", next: append([]byte(baseConfig), "---\napiVersion: v1alpha1\nkind: KmsgLogConfig\nname: remote\nurl: tcp://192.0.2.1:5000\n"...), live: true},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			_, c := started(t, talostest.Node{Version: "v1.13.9", Config: tt.running})

			_, err := c.ApplyConfiguration(context.Background(), &machine.ApplyConfigurationRequest{Data: tt.next, Mode: machine.ApplyConfigurationRequest_NO_REBOOT})

			switch {
			case tt.live && err != nil:
				t.Errorf("refused: %v", err)
			case !tt.live && (status.Code(err) != codes.InvalidArgument || !strings.HasPrefix(status.Convert(err).Message(), notLive)):
				t.Errorf("err %v, want InvalidArgument %q…", err, notLive)
			}
		})
	}
}

package cli

import (
	"errors"
	"flag"
	"reflect"
	"testing"
	"time"

	"github.com/talops/talops/internal/app"
)

func TestFlags_InitAndTalosconfigFillTheirOptions(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name  string
		parse func(d *Deps, args []string) (any, error)
		args  []string
		want  any
	}{
		{
			name:  "init encrypted to two recipients",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(initFlags(d, a)) },
			args: []string{"--dir", "lab", "--name", "lab", "--endpoint", "https://10.0.0.1:6443", "--talos-version", "v1.12.0",
				"--kubernetes-version", "v1.35.0",
				"--age-recipient", "age18r6sczqmajz2sx70wj4ay5h93cqmz3eq9l7edxa77289xe9x4yksjkr8c8",
				"--age-recipient", "age1hfxtlsvwsjtezzl30yxszvqq6qx9zrg0kgrxwaxz3nfcldvxxs5qw3w8nh"},
			want: &InitOptions{InitOptions: app.InitOptions{Dir: "lab", Name: "lab", Endpoint: "https://10.0.0.1:6443", TalosVersion: "v1.12.0", KubernetesVersion: "v1.35.0", Recipients: []string{"age18r6sczqmajz2sx70wj4ay5h93cqmz3eq9l7edxa77289xe9x4yksjkr8c8", "age1hfxtlsvwsjtezzl30yxszvqq6qx9zrg0kgrxwaxz3nfcldvxxs5qw3w8nh"}}},
		},
		{
			name:  "init plaintext, hostnames left to Talos",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(initFlags(d, a)) },
			args:  []string{"--dir", "lab", "--name", "lab", "--endpoint", "https://10.0.0.1:6443", "--plaintext-secrets", "--no-hostnames"},
			want:  &InitOptions{InitOptions: app.InitOptions{Dir: "lab", Name: "lab", Endpoint: "https://10.0.0.1:6443", Plaintext: true, NoHostnames: true}},
		},
		{
			name:  "talosconfig defaults",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(talosconfigFlags(d, a)) },
			args:  []string{"--out", "tc"},
			want:  &TalosconfigOptions{Out: "tc", TalosconfigOptions: app.TalosconfigOptions{Dir: ".", Role: "os:admin", TTL: 365 * 24 * time.Hour}},
		},
		{
			name:  "talosconfig reader for a day",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(talosconfigFlags(d, a)) },
			args:  []string{"--dir", "lab", "--out", "-", "--role", "os:reader", "--ttl", "24h", "--force"},
			want:  &TalosconfigOptions{Out: "-", Force: true, TalosconfigOptions: app.TalosconfigOptions{Dir: "lab", Role: "os:reader", TTL: 24 * time.Hour}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			got, err := tc.parse(flagsDeps(), tc.args)
			if err != nil {
				t.Fatal(err)
			}

			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("options\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestFlags_InitAndTalosconfigUsageErrorsNameTheFlag(t *testing.T) {
	t.Parallel()

	inAction := func() *Deps {
		d := flagsDeps()
		d.Getenv = func(k string) string {
			if k == "GITHUB_ACTIONS" {
				return "true"
			}

			return ""
		}

		return d
	}

	for _, tc := range []struct {
		name  string
		deps  func() *Deps
		parse func(d *Deps, a []string) (any, error)
		args  []string
		want  string
	}{
		{"init without --dir", flagsDeps, func(d *Deps, a []string) (any, error) { return withoutDeps(initFlags(d, a)) }, nil, "--dir is required"},
		{"init bad recipient", flagsDeps, func(d *Deps, a []string) (any, error) { return withoutDeps(initFlags(d, a)) },
			[]string{"--dir", "d", "--name", "n", "--endpoint", "https://a:1", "--age-recipient", "ssh-ed25519 AAAA"}, "--age-recipient: age recipient 1: not an age X25519 recipient (age1...)"},
		{"talosconfig without --out", flagsDeps, func(d *Deps, a []string) (any, error) { return withoutDeps(talosconfigFlags(d, a)) }, nil, "--out is required"},
		{"talosconfig unknown role", flagsDeps, func(d *Deps, a []string) (any, error) { return withoutDeps(talosconfigFlags(d, a)) },
			[]string{"--out", "tc", "--role", "os:etcd:backup"}, `--role must be one of os:admin, os:operator, os:reader, got "os:etcd:backup"`},
		{"talosconfig zero ttl", flagsDeps, func(d *Deps, a []string) (any, error) { return withoutDeps(talosconfigFlags(d, a)) },
			[]string{"--out", "tc", "--ttl", "0s"}, "--ttl must be positive, got 0s"},
		{"talosconfig to stdout in an action", inAction, func(d *Deps, a []string) (any, error) { return withoutDeps(talosconfigFlags(d, a)) },
			[]string{"--out", "-"}, "--out - is refused in GitHub Actions: a talosconfig on stdout would end up in the job log"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			_, err := tc.parse(tc.deps(), tc.args)

			var usage *app.UsageError
			if !errors.As(err, &usage) || err.Error() != tc.want || errors.Is(err, flag.ErrHelp) {
				t.Errorf("error %v, want the usage error %q", err, tc.want)
			}
		})
	}
}

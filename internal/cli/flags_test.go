package cli

import (
	"bytes"
	"errors"
	"flag"
	"reflect"
	"testing"
	"time"

	"github.com/talops/talops/internal/app"
)

// flagsDeps are doors for flag parsing alone: usage goes to a buffer, nothing else is used.
func flagsDeps() *Deps {
	return &Deps{Outside: app.Outside{Getenv: func(string) string { return "" }}, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
}

// withoutDeps drops the Deps of an options struct, so that the user's input compares.
func withoutDeps[T any](opts *T, err error) (any, error) {
	if err != nil {
		return nil, err
	}

	reflect.ValueOf(opts).Elem().FieldByName("Deps").SetZero()

	return opts, nil
}

func TestFlags_EachCommandsFlagsFillItsOptions(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name  string
		parse func(d *Deps, args []string) (any, error)
		args  []string
		want  any
	}{
		{
			name:  "validate defaults",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(validateFlags(d, a)) },
			want:  &ValidateOptions{Format: "text", ValidateOptions: app.ValidateOptions{Dir: ".", Mode: "metal"}},
		},
		{
			name:  "validate standalone files",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(validateFlags(d, a)) },
			args:  []string{"--strict", "--offline", "--mode", "cloud", "--format", "json", "a.yaml", "b.yaml"},
			want:  &ValidateOptions{Format: "json", ValidateOptions: app.ValidateOptions{Dir: ".", Strict: true, Offline: true, Mode: "cloud", Files: []string{"a.yaml", "b.yaml"}}},
		},
		{
			name:  "migrate with a check",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(migrateFlags(d, a)) },
			args:  []string{"--config-version", "v1.14", "--dir", "lab", "--check", "--format", "json"},
			want:  &MigrateOptions{Format: "json", MigrateOptions: app.MigrateOptions{Dir: "lab", ConfigVersion: "v1.14", Check: true}},
		},
		{
			name:  "plan against a ref",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(planFlags(d, a)) },
			args:  []string{"--dir", "lab", "--base", "main", "--format", "markdown", "--detailed-exitcode", "--offline"},
			want:  &PlanOptions{Format: "markdown", DetailedExitCode: true, PlanOptions: app.PlanOptions{Dir: "lab", Base: "main", Offline: true}},
		},
		{
			name:  "plan against the nodes",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(planFlags(d, a)) },
			args:  []string{"--live", "--talosconfig", "tc"},
			want:  &PlanOptions{Format: "text", PlanOptions: app.PlanOptions{Dir: ".", Live: true, Talosconfig: "tc"}},
		},
		{
			name:  "apply defaults",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(applyFlags(d, a)) },
			want:  &ApplyOptions{Format: "text", ApplyOptions: app.ApplyOptions{Dir: ".", Parallel: 1, InstallTimeout: 10 * time.Minute, DrainTimeout: 5 * time.Minute}},
		},
		{
			name:  "apply with a kubeconfig and a longer drain",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(applyFlags(d, a)) },
			args:  []string{"--kubeconfig", "kc", "--drain-timeout", "12m"},
			want:  &ApplyOptions{Format: "text", ApplyOptions: app.ApplyOptions{Dir: ".", Parallel: 1, InstallTimeout: 10 * time.Minute, Kubeconfig: "kc", DrainTimeout: 12 * time.Minute}},
		},
		{
			name:  "apply without a drain",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(applyFlags(d, a)) },
			args:  []string{"--no-drain"},
			want:  &ApplyOptions{Format: "text", ApplyOptions: app.ApplyOptions{Dir: ".", Parallel: 1, InstallTimeout: 10 * time.Minute, NoDrain: true, DrainTimeout: 5 * time.Minute}},
		},
		{
			name:  "apply a reviewed plan",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(applyFlags(d, a)) },
			args: []string{"--dir", "lab", "--talosconfig", "tc", "--plan-hash", "h", "--reviewed-against", "base", "--register",
				"--proxmox-images", "--parallel", "3", "--mode", "staged", "--dry-run", "--format", "json", "--install-timeout", "25m",
				"--etcd-backup", "bk", "--etcd-backup-recipient", "age1a", "--etcd-backup-recipient", "age1b"},
			want: &ApplyOptions{Format: "json", ApplyOptions: app.ApplyOptions{Dir: "lab", Talosconfig: "tc", PlanHash: "h", ReviewedAgainst: "base", Register: true, ProxmoxImages: true, Parallel: 3, Mode: "staged", DryRun: true, InstallTimeout: 25 * time.Minute, DrainTimeout: 5 * time.Minute, EtcdBackup: "bk", BackupRecipients: []string{"age1a", "age1b"}}},
		},
		{
			name:  "apply removing nodes",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(applyFlags(d, a)) },
			args:  []string{"--allow-remove"},
			want:  &ApplyOptions{Format: "text", ApplyOptions: app.ApplyOptions{Dir: ".", Parallel: 1, InstallTimeout: 10 * time.Minute, DrainTimeout: 5 * time.Minute, AllowRemove: true}},
		},
		{
			name:  "apply without the lock when the Kubernetes API does not answer",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(applyFlags(d, a)) },
			args:  []string{"--no-lock"},
			want:  &ApplyOptions{Format: "text", ApplyOptions: app.ApplyOptions{Dir: ".", Parallel: 1, InstallTimeout: 10 * time.Minute, DrainTimeout: 5 * time.Minute, NoLock: true}},
		},
		{
			name:  "apply with every option that widens what it does, and one that narrows it",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(applyFlags(d, a)) },
			args: []string{"--allow-remove", "--no-drain", "--no-lock", "--ignore-window", "--no-etcd-backup", "--proxmox-vms", "--proxmox-reset",
				"--mode", "auto", "--nodes", "k8s-node1, k8s-node2"},
			want: &ApplyOptions{Format: "text", ApplyOptions: app.ApplyOptions{
				Dir: ".", Parallel: 1, Mode: "auto", InstallTimeout: 10 * time.Minute, DrainTimeout: 5 * time.Minute,
				AllowRemove: true, NoDrain: true, NoLock: true, IgnoreWindow: true, NoEtcdBackup: true, ProxmoxVMs: true, ProxmoxReset: true,
				Nodes: []string{"k8s-node1", "k8s-node2"},
			}},
		},
		{
			name:  "kubeconfig to a file",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(kubeconfigFlags(d, a)) },
			args:  []string{"--dir", "lab", "--talosconfig", "tc", "--out", "kc"},
			want:  &KubeconfigOptions{Dir: "lab", Talosconfig: "tc", Out: "kc"},
		},
		{
			name:  "versions against a directory",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(versionsFlags(d, a)) },
			args:  []string{"--against", "base", "--offline", "--format", "json"},
			want:  &VersionsOptions{Format: "json", VersionsOptions: app.VersionsOptions{Dir: ".", Against: "base", Offline: true}},
		},
		{
			name:  "versions moving the driver pin",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(versionsFlags(d, a)) },
			args:  []string{"--base", "main", "--fix-driver-pin"},
			want:  &VersionsOptions{Format: "text", VersionsOptions: app.VersionsOptions{Dir: ".", Base: "main", FixDriverPin: true}},
		},
		{
			name:  "schematics with registration",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(schematicsFlags(d, a)) },
			args:  []string{"--register", "--format", "markdown"},
			want:  &SchematicsOptions{Format: "markdown", SchematicsOptions: app.SchematicsOptions{Dir: ".", Register: true}},
		},
		{
			name:  "schematic id",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(schematicFlags(d, a)) },
			args:  []string{"id", "a.yaml"},
			want:  &SchematicIDOptions{Files: []string{"a.yaml"}},
		},
		{
			name:  "render",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(renderFlags(d, a)) },
			args:  []string{"--out", "out"},
			want:  &RenderOptions{Dir: ".", Out: "out"},
		},
		{
			name:  "proxmox images",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(proxmoxImagesFlags(d, a)) },
			args:  []string{"--dry-run", "--format", "json"},
			want:  &ProxmoxImagesOptions{Format: "json", ProxmoxImagesOptions: app.ProxmoxImagesOptions{Dir: ".", DryRun: true, Register: true}},
		},
		{
			name:  "proxmox vms",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(proxmoxVMsFlags(d, a)) },
			args:  []string{"--start"},
			want:  &ProxmoxVMsOptions{Format: "text", ProxmoxVMsOptions: app.ProxmoxVMsOptions{Dir: ".", Start: true}},
		},
		{
			name:  "catalog update",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(catalogFlags(d, a)) },
			args:  []string{"update", "--factory", "https://factory.example", "--file", "data.json", "--facts", "facts.json"},
			want:  &CatalogUpdateOptions{CatalogUpdateOptions: app.CatalogUpdateOptions{Factory: "https://factory.example", File: "data.json", Facts: "facts.json"}},
		},
		{
			name:  "backup defaults",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(backupFlags(d, a)) },
			want:  &BackupOptions{BackupOptions: app.BackupOptions{Dir: "."}},
		},
		{
			name:  "backup to a directory, to two recipients",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(backupFlags(d, a)) },
			args:  []string{"--dir", "lab", "--talosconfig", "tc", "--to", "/backups", "--recipient", "age1a", "--recipient", "age1b"},
			want:  &BackupOptions{BackupOptions: app.BackupOptions{Dir: "lab", Talosconfig: "tc", To: "/backups", Recipients: []string{"age1a", "age1b"}}},
		},
		{
			name:  "backup list from a directory",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(backupListFlags(d, a)) },
			args:  []string{"--from", "/backups"},
			want:  &BackupListOptions{BackupListOptions: app.BackupListOptions{Dir: ".", From: "/backups"}},
		},
		{
			name:  "backup to a bucket, with a retention",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(backupFlags(d, a)) },
			args:  []string{"--to", "s3://b/lab", "--s3-endpoint", "https://s3.lab", "--s3-region", "eu-west-1", "--keep", "14", "--keep-within", "30d"},
			want:  &BackupOptions{BackupOptions: app.BackupOptions{Dir: ".", To: "s3://b/lab", S3: app.S3Options{Endpoint: "https://s3.lab", Region: "eu-west-1"}, Keep: 14, KeepWithin: "30d"}},
		},
		{
			name:  "backup list from a bucket of the repository's section",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(backupListFlags(d, a)) },
			args:  []string{"--dir", "lab", "--s3-region", "eu-west-1"},
			want:  &BackupListOptions{BackupListOptions: app.BackupListOptions{Dir: "lab", S3: app.S3Options{Region: "eu-west-1"}}},
		},
		{
			name:  "backup verify of the newest",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(backupVerifyFlags(d, a)) },
			args:  []string{"--from", "/backups", "--latest"},
			want:  &BackupVerifyOptions{VerifyOptions: app.VerifyOptions{Dir: ".", From: "/backups", Latest: true}},
		},
		{
			name:  "backup verify of one by name from a bucket",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(backupVerifyFlags(d, a)) },
			args:  []string{"--from", "s3://b/lab", "--s3-endpoint", "https://s3.lab", "homelab-20261129T120000Z"},
			want:  &BackupVerifyOptions{VerifyOptions: app.VerifyOptions{Dir: ".", From: "s3://b/lab", S3: app.S3Options{Endpoint: "https://s3.lab"}, Name: "homelab-20261129T120000Z"}},
		},
		{
			name:  "recover defaults",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(recoverFlags(d, a)) },
			want:  &RecoverOptions{Format: "text", RecoverOptions: app.RecoverOptions{Dir: "."}},
		},
		{
			name:  "recover the whole cluster from the newest backup, without asking",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(recoverFlags(d, a)) },
			args:  []string{"--dir", "lab", "--talosconfig", "tc", "--from", "/backups", "--latest", "--yes", "--format", "json"},
			want:  &RecoverOptions{Yes: true, Format: "json", RecoverOptions: app.RecoverOptions{Dir: "lab", Talosconfig: "tc", From: "/backups", Latest: true}},
		},
		{
			name:  "recover from one backup by name",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(recoverFlags(d, a)) },
			args:  []string{"--from", "/backups", "--backup", "homelab-20261129T120000Z"},
			want:  &RecoverOptions{Format: "text", RecoverOptions: app.RecoverOptions{Dir: ".", From: "/backups", Backup: "homelab-20261129T120000Z"}},
		},
		{
			name:  "recover one lost control plane",
			parse: func(d *Deps, a []string) (any, error) { return withoutDeps(recoverFlags(d, a)) },
			args:  []string{"--node", "cp2"},
			want:  &RecoverOptions{Format: "text", RecoverOptions: app.RecoverOptions{Dir: ".", Node: "cp2"}},
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

func TestFlags_UsageErrorsNameTheFlag(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name  string
		parse func(d *Deps, a []string) (any, error)
		args  []string
		want  string
	}{
		{"validate --dir with files", func(d *Deps, a []string) (any, error) { return withoutDeps(validateFlags(d, a)) }, []string{"--dir", "x", "a.yaml"}, "validate takes --dir or FILE arguments, not both"},
		{"plan stray argument", func(d *Deps, a []string) (any, error) { return withoutDeps(planFlags(d, a)) }, []string{"extra"}, `unexpected argument "extra" (run talops plan -h)`},
		{"apply --parallel 0", func(d *Deps, a []string) (any, error) { return withoutDeps(applyFlags(d, a)) }, []string{"--parallel", "0"}, "--parallel must be 1 or more, got 0"},
		{"backup verify of the newest and one by name", func(d *Deps, a []string) (any, error) { return withoutDeps(backupVerifyFlags(d, a)) }, []string{"--latest", "x"}, "--latest and a backup's name cannot go together"},
		{"backup verify of two", func(d *Deps, a []string) (any, error) { return withoutDeps(backupVerifyFlags(d, a)) }, []string{"x", "y"}, `unexpected argument "y": verify takes one backup's name (run talops backup verify -h)`},
		{"kubeconfig without --out", func(d *Deps, a []string) (any, error) { return withoutDeps(kubeconfigFlags(d, a)) }, nil, "--out is required"},
		{"kubeconfig to the output", func(d *Deps, a []string) (any, error) { return withoutDeps(kubeconfigFlags(d, a)) }, []string{"--out", "-"}, "--out -: the admin kubeconfig is only written to a file (mode 0600), never to the output"},
		{"apply without a backup but with its directory", func(d *Deps, a []string) (any, error) { return withoutDeps(applyFlags(d, a)) }, []string{"--no-etcd-backup", "--etcd-backup", "b"}, "--no-etcd-backup cannot be used with --etcd-backup or --etcd-backup-recipient"},
		{"apply --drain-timeout 0", func(d *Deps, a []string) (any, error) { return withoutDeps(applyFlags(d, a)) }, []string{"--drain-timeout", "0s"}, "--drain-timeout must be positive, got 0s"},
		{"apply --install-timeout 0", func(d *Deps, a []string) (any, error) { return withoutDeps(applyFlags(d, a)) }, []string{"--install-timeout", "0s"}, "--install-timeout must be positive, got 0s"},
		{"apply unknown mode", func(d *Deps, a []string) (any, error) { return withoutDeps(applyFlags(d, a)) }, []string{"--mode", "soon"}, `--mode must be one of auto, no-reboot, staged, try, got "soon"`},
		{"versions without a state", func(d *Deps, a []string) (any, error) { return withoutDeps(versionsFlags(d, a)) }, nil, "give one of --base REF or --against DIR"},
		{"render without --out", func(d *Deps, a []string) (any, error) { return withoutDeps(renderFlags(d, a)) }, nil, "--out is required"},
		{"recover from the newest and one by name", func(d *Deps, a []string) (any, error) { return withoutDeps(recoverFlags(d, a)) }, []string{"--latest", "--backup", "x"}, "--latest and --backup cannot go together"},
		{"recover as markdown", func(d *Deps, a []string) (any, error) { return withoutDeps(recoverFlags(d, a)) }, []string{"--format", "markdown"}, `--format must be one of text, json, got "markdown"`},
		{"catalog without update", func(d *Deps, a []string) (any, error) { return withoutDeps(catalogFlags(d, a)) }, nil, "catalog needs a command: update"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			_, err := tc.parse(flagsDeps(), tc.args)

			var usage *app.UsageError
			if !errors.As(err, &usage) || err.Error() != tc.want || errors.Is(err, flag.ErrHelp) {
				t.Errorf("error %v, want the usage error %q", err, tc.want)
			}
		})
	}
}

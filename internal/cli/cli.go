// Package cli is talops' command line: one file per command, each with an options
// struct (dependencies first, user input last), a flag binder and a run function.
package cli

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/talops/talops/internal/alertmanager"
	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/backup"
	"github.com/talops/talops/internal/backupstore"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/door"
	"github.com/talops/talops/internal/etcdsnap"
	"github.com/talops/talops/internal/factory"
	"github.com/talops/talops/internal/gitrev"
	"github.com/talops/talops/internal/kube"
	"github.com/talops/talops/internal/proxmox"
	"github.com/talops/talops/internal/suggest"
)

// What both doors share lives in internal/door; these names keep the command line's.
type (
	// Deps are the doors to the outside every command goes through.
	Deps = door.Deps
	// RefusedError says apply refused to act: no node was changed.
	RefusedError = door.RefusedError
	// FailedError says a command ran and found failures it already reported.
	FailedError = door.FailedError
	// ChangesError says plan --detailed-exitcode found changes.
	ChangesError = door.ChangesError
)

// Exit codes (door.ExitCode decides).
const (
	ExitOK      = door.ExitOK
	ExitFailure = door.ExitFailure
	ExitChanges = door.ExitChanges
	// ExitOutsideWindow: apply changed nothing, no maintenance window is open.
	ExitOutsideWindow = door.ExitOutsideWindow
)

// ExitCode maps an error from Run to the process exit code.
func ExitCode(err error) int { return door.ExitCode(err) }

// OSDeps are the real doors.
func OSDeps() *Deps {
	version := buildVersion()

	return &Deps{
		Outside: app.Outside{
			Getenv:   os.Getenv,
			Hostname: os.Hostname,
			Kube: func(kubeconfig []byte) (app.Kube, error) {
				c, err := kube.New(kubeconfig)
				if err != nil {
					return nil, err // not a nil *kube.Client inside the interface
				}

				return c, nil
			},
			ReadFile:     cluster.ReadFileBounded,
			WriteFile:    writeFile,
			MkdirAll:     os.MkdirAll,
			CreateFile:   createFile,
			Rand:         rand.Reader,
			Lstat:        os.Lstat,
			Getwd:        os.Getwd,
			EvalSymlinks: filepath.EvalSymlinks,
			OpenDir:      door.OpenDisk,
			ListFiles:    door.ListDisk,
			Now:          time.Now,
			Git:          gitrev.Exec,
			ImageFactory: imageFactory(version),
			Alertmanager: alertmanagerClient,
			ReleaseCache: releaseCache(os.Getenv),
			BackupStore:  backupstore.OpenWith,
			ReadSnapshot: readSnapshot,
			Proxmox: func(cfg proxmox.Config) (proxmox.API, error) {
				c, err := proxmox.New(cfg)
				if err != nil {
					return nil, err
				}

				return c, nil
			},
		},
		Version: version,
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Chmod:   os.Chmod,
		Remove:  os.Remove,
		AppendFile: func(name string, data []byte) error {
			f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return err
			}

			if _, err := f.Write(data); err != nil {
				f.Close() //nolint:errcheck // the write error matters more

				return err
			}

			return f.Close()
		},
		HTTPClient: &http.Client{Timeout: 30 * time.Second},
		IsTerminal: func() bool { return term.IsTerminal(int(os.Stdout.Fd())) },
		Prompt:     prompt(os.Stdin, os.Stderr),
	}
}

// imageFactory makes the Image Factory clients, under talops' user agent.
func imageFactory(version string) func(baseURL string) (*factory.Client, error) {
	return func(baseURL string) (*factory.Client, error) {
		opts := []factory.Option{factory.WithUserAgent("talops/" + version), factory.WithClock(time.Now)}

		// Release listings change rarely: each run of validate on a pull request asks once
		// an hour at most (a cache that cannot be placed is no cache).
		if dir := cacheDir(os.Getenv); dir != "" {
			opts = append(opts, factory.WithCache(filepath.Join(dir, "factory"), time.Hour))
		}

		return factory.New(baseURL, opts...)
	}
}

// alertmanagerClient is the client of the Alertmanager talops.yaml names.
func alertmanagerClient(baseURL string, matchers []string) (*alertmanager.Client, error) {
	return alertmanager.New(baseURL, matchers, &http.Client{Timeout: 30 * time.Second})
}

// readSnapshot reads an etcd snapshot, spooled to the system's temporary directory.
func readSnapshot(r io.Reader) (backup.Contents, error) { return etcdsnap.Read(r, "") }

// prompt asks on w and reads the answer from in, a line; nil when in is no terminal
// (CI, a pipe, /dev/null, which is a character device too): nobody is there to answer.
func prompt(in *os.File, w io.Writer) func(question string) (string, error) {
	if !term.IsTerminal(int(in.Fd())) {
		return nil
	}

	r := bufio.NewReader(in)

	return func(question string) (string, error) {
		if _, err := io.WriteString(w, question); err != nil {
			return "", err
		}

		line, err := r.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}

		return line, nil
	}
}

// writeFile writes a file with exactly perm: an existing file's looser mode is tightened
// before the new contents (a machine config holds secrets) are written into it. A
// symbolic link in its place is refused, not followed: writing through it would truncate
// whatever it points at (a link left in render's --out folder, or committed to it).
func writeFile(name string, data []byte, perm os.FileMode) error {
	symlink := func() bool {
		fi, err := os.Lstat(name)

		return err == nil && fi.Mode()&os.ModeSymlink != 0
	}

	// Where opening refuses a link by itself, the look at the path waits for a refusal.
	if noFollow == 0 && symlink() {
		return fmt.Errorf("%s is a symbolic link: talops does not write through it", name)
	}

	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|noFollow, perm)
	if err != nil {
		if symlink() {
			return fmt.Errorf("%s is a symbolic link: talops does not write through it", name)
		}

		return err
	}

	if err := f.Chmod(perm); err != nil {
		f.Close() //nolint:errcheck // the chmod error matters more

		return err
	}

	if _, err := f.Write(data); err != nil {
		f.Close() //nolint:errcheck // the write error matters more

		return err
	}

	// The old contents past the new end go after the new ones are written, not before:
	// ext4 flushes a file truncated to nothing and written again when it is closed, which
	// cost render half its system time.
	if err := f.Truncate(int64(len(data))); err != nil {
		f.Close() //nolint:errcheck // the truncate error matters more

		return err
	}

	return f.Close()
}

// createFile writes a file that must not exist yet, with exactly perm.
func createFile(name string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}

	// Exactly perm, whatever the umask.
	if err := f.Chmod(perm); err != nil {
		f.Close() //nolint:errcheck // the chmod error matters more

		return err
	}

	if _, err := f.Write(data); err != nil {
		f.Close() //nolint:errcheck // the write error matters more

		return err
	}

	return f.Close()
}

type command struct {
	name  string
	short string
	run   func(ctx context.Context, d *Deps, args []string) error
}

func commands() []command {
	return []command{
		{"init", "write the repository of a new cluster, with a fresh SOPS/age-encrypted secrets bundle", runInit},
		{"import", "write a talops repository from a talhelper or topf one or machine configs: import talhelper|topf|talosctl --from PATH --out DIR", runImport},
		{"talosconfig", "write a talosconfig signed by the bundle's OS CA: talosconfig --out FILE", runTalosconfig},
		{"validate", "check the machine configs of a repository (or standalone files)", runValidate},
		{"render", "write the machine config of every node", runRender},
		{"migrate", "move the patches to a newer config contract's documents, proving nothing effective changes", runMigrate},
		{"plan", "show what applying would change on each node", runPlan},
		{"apply", "apply the plan to the nodes, node by node with health gates", runApply},
		{"kubeconfig", "write the cluster's admin kubeconfig, read from a control plane", runKubeconfig},
		{"backup", "back up etcd, age-encrypted, with a manifest: backup [list|verify]", runBackup},
		{"recover", "bring the cluster back from a backup, or one lost control plane back into etcd", runRecover},
		{"schematic", "print the Image Factory ID of schematic files: schematic id FILE...", runSchematic},
		{"schematics", "show each schematic's ID and each node's installer and boot images", runSchematics},
		{"versions", "explain a Talos, Kubernetes and NVIDIA version bump against another state", runVersions},
		{"proxmox", "boot ISOs in Proxmox storage, and the nodes' VMs: proxmox images|vms", runProxmox},
		{"catalog", "release data: catalog update refreshes it from the Image Factory", runCatalog},
		{"version", "print the talops version", runVersion},
		{"completion", "print a shell completion script: completion bash|zsh|fish", runCompletion},
	}
}

// Run runs one command line (without the program name) and reports errors on stderr.
func Run(ctx context.Context, d *Deps, args []string) error {
	err := dispatch(ctx, d, args)
	ReportError(d, err)

	return err
}

func dispatch(ctx context.Context, d *Deps, args []string) error {
	if len(args) == 0 {
		d.Errf("%s", usage())

		return &app.UsageError{Msg: "a command is required"}
	}

	if args[0] == "--version" {
		return runVersion(ctx, d, args[1:])
	}

	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		// Asked for: help is the output, not a complaint.
		return d.Out(usage())
	}

	names := []string{"action", "help"}

	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, d, args[1:])
		}

		names = append(names, c.name)
	}

	return &app.UsageError{Msg: fmt.Sprintf("unknown command %q%s (run talops help)", args[0], suggest.DidYouMean(args[0], names))}
}

func usage() string {
	var b strings.Builder

	b.WriteString("talops runs Talos Linux clusters from a Git repository.\n\nUsage: talops <command> [flags]\n\nCommands:\n")

	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-11s %s\n", c.name, c.short)
	}

	fmt.Fprintf(&b, "  %-11s %s\n", "action", "run as a GitHub Action: talops action <command>")
	b.WriteString("\nRun talops <command> -h for its flags.\n")

	return b.String()
}

// ReportError prints an error once, one problem per line, masked.
func ReportError(d *Deps, err error) {
	var failed *FailedError

	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return
	case errors.As(err, &failed):
		return
	}

	var changes *ChangesError
	if errors.As(err, &changes) {
		return
	}

	for _, line := range strings.Split(err.Error(), "\n") {
		if line != "" {
			d.Errf("talops: %s\n", line)
		}
	}
}

// newFlags returns a flag set that never exits nor prints by itself: parseFlags prints the
// help asked for (to stdout: it is the output) and turns a bad flag into one usage error.
func newFlags(d *Deps, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(d.Stdout, "Usage: talops %s\n", synopsis) //nolint:errcheck // a failed write of the usage has nowhere to go

		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })

		if hasFlags {
			fmt.Fprint(d.Stdout, "\nFlags:\n") //nolint:errcheck // a failed write of the usage has nowhere to go
			fs.SetOutput(d.Stdout)
			fs.PrintDefaults()
			fs.SetOutput(io.Discard)
		}
	}

	if d.FlagSet != nil {
		d.FlagSet(fs)
	}

	return fs
}

// parseNoArgs parses flags of a command that takes no arguments.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}

	if fs.NArg() > 0 {
		return &app.UsageError{Msg: fmt.Sprintf("unexpected argument %q (run talops %s -h)", fs.Arg(0), fs.Name())}
	}

	return nil
}

// parseFlags parses and turns flag errors into usage errors: -h prints the help, a bad
// flag is one line naming it and where the help is, never the whole help after it.
func parseFlags(fs *flag.FlagSet, args []string) error {
	help := fs.Usage
	fs.Usage = func() {}

	defer func() { fs.Usage = help }()

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			help()

			return err
		}

		return &app.UsageError{Msg: fmt.Sprintf("%v%s (run talops %s -h)", err, flagSuggestion(fs, args), fs.Name())}
	}

	return nil
}

// flagSuggestion is the "did you mean" of the first flag in args fs does not define
// ("" when every flag is defined or none is close).
func flagSuggestion(fs *flag.FlagSet, args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			break
		}

		name, _, withValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if f := fs.Lookup(name); f != nil {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !withValue && (!ok || !b.IsBoolFlag()) {
				i++ // the flag's value
			}

			continue
		}

		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })

		if c := suggest.Closest(name, names); c != "" {
			return "; did you mean --" + c + "?"
		}

		return ""
	}

	return ""
}

func oneOf(flagName, value string, allowed []string) error {
	for _, a := range allowed {
		if a == value {
			return nil
		}
	}

	return &app.UsageError{Msg: fmt.Sprintf("--%s must be one of %s, got %q", flagName, strings.Join(allowed, ", "), value)}
}

// cacheDir is talops' cache: $TALOPS_CACHE_DIR (the Actions point it at a directory that
// actions/cache keeps between runs), else the user's cache directory; "" when neither can be
// placed.
func cacheDir(getenv func(string) string) string {
	if dir := getenv("TALOPS_CACHE_DIR"); dir != "" {
		return dir
	}

	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "talops")
	}

	return ""
}

// releaseCache is where releases learnt from an Image Factory are kept, for good.
func releaseCache(getenv func(string) string) string {
	if dir := cacheDir(getenv); dir != "" {
		return filepath.Join(dir, "releases")
	}

	return ""
}

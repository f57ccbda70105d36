// Package cli is talops' command line: one file per command, each with an options
// struct (dependencies first, user input last), a flag binder and a run function.
package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/factory"
	"github.com/talops/talops/internal/gitrev"
	"github.com/talops/talops/internal/mask"
	"github.com/talops/talops/internal/proxmox"
	"github.com/talops/talops/internal/secrets"
)

// Exit codes, decided in one place (ExitCode).
const (
	ExitOK      = 0
	ExitFailure = 1
	// ExitChanges is only used by plan --detailed-exitcode.
	ExitChanges = 2
)

// Deps are the doors to the outside every command goes through.
type Deps struct {
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// ReadFile reads files outside a repository directory (standalone configs, age keys).
	ReadFile func(string) ([]byte, error)
	// WriteFile writes rendered files.
	WriteFile func(name string, data []byte, perm os.FileMode) error
	// MkdirAll creates output directories.
	MkdirAll func(name string, perm os.FileMode) error
	// CreateFile writes a new file, failing (wrapping fs.ErrExist) when it exists: init and
	// talosconfig never overwrite.
	CreateFile func(name string, data []byte, perm os.FileMode) error
	// Rand is the randomness of the secrets bundle's encryption (nil: crypto/rand).
	Rand io.Reader
	// AppendFile appends to a file (the runner's output file).
	AppendFile func(name string, data []byte) error
	// OpenDir opens a repository directory.
	OpenDir func(dir string) (cluster.Files, func() error, error)
	Now     func() time.Time
	// Git runs git (for --base REF).
	Git gitrev.Runner
	// TempDir is where other states of the repository are unpacked ("" for the system default).
	TempDir string
	// HTTPClient reaches GitHub.
	HTTPClient *http.Client
	// ImageFactory returns the client of the Image Factory at baseURL (talops.yaml's
	// imageFactory). Nil means no factory may be reached; tests return a fake's client.
	ImageFactory func(baseURL string) (*factory.Client, error)
	// IsTerminal reports whether stdout is a terminal (colour is for terminals only).
	IsTerminal func() bool
	// TalosEndpoint maps a node address to the Talos API endpoint dialled when the
	// talosconfig context names no endpoints (nil: the address, on port 50000).
	TalosEndpoint func(address string) string
	// TalosTimeout bounds the reads of one node (0: talos.DefaultTimeout).
	TalosTimeout time.Duration
	// GateTimeout bounds apply's wait for a node to come back healthy (0: 10 minutes);
	// GateInterval is the pause between its checks (0: 5 seconds).
	GateTimeout, GateInterval time.Duration
	// Proxmox returns the client of a Proxmox VE API (nil: none may be reached).
	Proxmox func(cfg proxmox.Config) (proxmox.API, error)
	// OpenExported opens a state exported from git, always on disk whatever OpenDir
	// serves (nil: the directory on disk).
	OpenExported func(dir string) (cluster.Files, func() error, error)
	// Version is talops' own version (ResolveVersion); "" reports dev.
	Version string

	// flagSet, when set, is handed every flag set a command makes (completion reads the
	// flags from them, so they are never listed twice).
	flagSet func(fs *flag.FlagSet)

	// shared is the state of d and of every Deps derived from it: secrets masked through
	// one are masked in all, and the factory is asked about a release once.
	shared *shared
	// secrets is d's own: it reads d's environment.
	secrets *secrets.Loader
}

// shared is what Deps derived from one another have in common.
type shared struct {
	mu       sync.Mutex
	masker   *mask.Masker
	releases app.Releases
}

func (d *Deps) state() *shared {
	if d.shared == nil {
		d.shared = &shared{}
	}

	return d.shared
}

// OSDeps are the real doors.
func OSDeps() *Deps {
	version := buildVersion()

	return &Deps{
		Version:    version,
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		Getenv:     os.Getenv,
		ReadFile:   cluster.ReadFileBounded,
		WriteFile:  os.WriteFile,
		MkdirAll:   os.MkdirAll,
		CreateFile: createFile,
		Rand:       rand.Reader,
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
		OpenDir:      openDisk,
		OpenExported: openDisk,
		Now:          time.Now,
		Git:          gitrev.Exec,
		HTTPClient:   &http.Client{Timeout: 30 * time.Second},
		ImageFactory: func(baseURL string) (*factory.Client, error) {
			return factory.New(baseURL, factory.WithUserAgent("talops/"+version))
		},
		Proxmox: func(cfg proxmox.Config) (proxmox.API, error) {
			c, err := proxmox.New(cfg)
			if err != nil {
				return nil, err
			}

			return c, nil
		},
		IsTerminal: func() bool {
			st, err := os.Stdout.Stat()

			return err == nil && st.Mode()&os.ModeCharDevice != 0
		},
	}
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

// openDisk opens a repository directory on disk.
func openDisk(dir string) (cluster.Files, func() error, error) {
	d, err := cluster.OpenDir(dir)
	if err != nil {
		return nil, nil, err
	}

	return d, d.Close, nil
}

// Secrets returns the bundle loader, built once.
func (d *Deps) Secrets() *secrets.Loader {
	if d.secrets == nil {
		d.secrets = &secrets.Loader{Getenv: d.Getenv, ReadFile: d.ReadFile, Now: d.Now}
	}

	return d.secrets
}

// Mask registers secret values; everything printed afterwards is masked.
func (d *Deps) Mask(values ...string) {
	st := d.state()

	st.mu.Lock()
	defer st.mu.Unlock()

	st.masker = mask.New(append(st.masker.Values(), values...)...)
}

// Masker is the masker in force.
func (d *Deps) Masker() *mask.Masker {
	st := d.state()

	st.mu.Lock()
	defer st.mu.Unlock()

	return st.masker
}

// WithEnv derives Deps whose environment reads overrides first, then d's. The derived
// Deps share d's masking and release answers, and load secrets from their own environment.
func (d *Deps) WithEnv(overrides map[string]string) *Deps {
	out := d.derive()
	getenv := d.Getenv
	out.Getenv = func(k string) string {
		if v, ok := overrides[k]; ok {
			return v
		}

		return getenv(k)
	}

	return out
}

// WithFile derives Deps whose ReadFile serves data as the file name, and d's files otherwise.
func (d *Deps) WithFile(name string, data []byte) *Deps {
	out := d.derive()
	readFile := d.ReadFile
	out.ReadFile = func(n string) ([]byte, error) {
		if n == name {
			return data, nil
		}

		return readFile(n)
	}

	return out
}

func (d *Deps) derive() *Deps {
	d.state()

	out := *d
	out.secrets = nil

	return &out
}

// App is what the application layer reaches the outside through: the same doors, the
// notes it prints going to stderr through the masker.
func (d *Deps) App() *app.Deps {
	openExported := d.OpenExported
	if openExported == nil {
		openExported = openDisk
	}

	return &app.Deps{
		Getenv: d.Getenv, ReadFile: d.ReadFile, WriteFile: d.WriteFile,
		CreateFile: d.CreateFile, MkdirAll: d.MkdirAll, Rand: d.Rand,
		OpenDir: d.OpenDir, OpenExported: openExported, Git: d.Git, TempDir: d.TempDir,
		ImageFactory: d.ImageFactory, TalosEndpoint: d.TalosEndpoint, TalosTimeout: d.TalosTimeout,
		GateTimeout: d.GateTimeout, GateInterval: d.GateInterval, Proxmox: d.Proxmox,
		UserAgent: "talops/" + d.TalopsVersion(), Now: d.Now,
		Mask: d.Mask, Masker: d.Masker, Secrets: d.Secrets(), Releases: &d.state().releases,
		Note: func(text string) { d.errf("%s", text) },
	}
}

// color reports whether views may use colour: on a terminal, unless NO_COLOR is set.
func (d *Deps) color() bool {
	return d.IsTerminal != nil && d.IsTerminal() && d.Getenv("NO_COLOR") == ""
}

// out writes to stdout through the masker.
func (d *Deps) out(s string) error {
	_, err := io.WriteString(d.Stdout, d.Masker().String(s))

	return err
}

// errf writes a line to stderr through the masker.
func (d *Deps) errf(format string, args ...any) {
	fmt.Fprint(d.Stderr, d.Masker().String(fmt.Sprintf(format, args...))) //nolint:errcheck
}

// UsageError is a command line that cannot be run.
type UsageError = app.UsageError

// RefusedError says apply refused to act: no node was changed.
type RefusedError = app.RefusedError

// FailedError says a command ran and found failures it already reported.
type FailedError struct{ Msg string }

func (e *FailedError) Error() string { return e.Msg }

// ChangesError says plan --detailed-exitcode found changes.
type ChangesError struct{}

func (e *ChangesError) Error() string { return "changes present" }

// ExitCode maps an error from Run to the process exit code.
func ExitCode(err error) int {
	var changes *ChangesError

	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return ExitOK
	case errors.As(err, &changes):
		return ExitChanges
	default:
		return ExitFailure
	}
}

type command struct {
	name  string
	short string
	run   func(ctx context.Context, d *Deps, args []string) error
}

func commands() []command {
	return []command{
		{"init", "write the repository of a new cluster, with a fresh SOPS/age-encrypted secrets bundle", runInit},
		{"talosconfig", "write a talosconfig signed by the bundle's OS CA: talosconfig --out FILE", runTalosconfig},
		{"validate", "check the machine configs of a repository (or standalone files)", runValidate},
		{"render", "write the machine config of every node", runRender},
		{"plan", "show what applying would change on each node", runPlan},
		{"apply", "apply the plan to the nodes, node by node with health gates", runApply},
		{"kubeconfig", "write the cluster's admin kubeconfig, read from a control plane", runKubeconfig},
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
		d.errf("%s", usage())

		return &UsageError{Msg: "a command is required"}
	}

	if args[0] == "--version" {
		return runVersion(ctx, d, args[1:])
	}

	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		// Asked for: help is the output, not a complaint.
		return d.out(usage())
	}

	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, d, args[1:])
		}
	}

	return &UsageError{Msg: fmt.Sprintf("unknown command %q (run talops help)", args[0])}
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
			d.errf("talops: %s\n", line)
		}
	}
}

// newFlags returns a flag set that reports to stderr and never exits.
func newFlags(d *Deps, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(d.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(d.Stderr, "Usage: talops %s\n\nFlags:\n", synopsis) //nolint:errcheck
		fs.PrintDefaults()
	}

	if d.flagSet != nil {
		d.flagSet(fs)
	}

	return fs
}

// parseNoArgs parses flags of a command that takes no arguments.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}

	if fs.NArg() > 0 {
		return &UsageError{Msg: fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}

	return nil
}

// view renders a view into memory and prints it masked, in one write.
func (d *Deps) view(render func(w io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}

	return d.out(buf.String())
}

// parseFlags parses and turns flag errors into usage errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}

		return &UsageError{Msg: err.Error()}
	}

	return nil
}

func oneOf(flagName, value string, allowed []string) error {
	for _, a := range allowed {
		if a == value {
			return nil
		}
	}

	return &UsageError{Msg: fmt.Sprintf("--%s must be one of %s, got %q", flagName, strings.Join(allowed, ", "), value)}
}

// Package action runs talops as a GitHub Action. It only maps the runner's world
// (INPUT_* variables, the event payload, the GITHUB_* files) onto the options of the same
// use cases the CLI runs (internal/app), and writes the log, annotations, the job summary,
// pull request comments and outputs.
package action

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/door"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/report"
)

// Input names. They keep their hyphens: the runner passes INPUT_SOPS-AGE-KEY.
const (
	InputDir           = "dir"
	InputStrict        = "strict"
	InputSOPSAgeKey    = "sops-age-key"
	InputTalosSecrets  = "talos-secrets"
	InputCommand       = "command"
	envSOPSAgeKey      = "SOPS_AGE_KEY"
	envTalosSecretsVar = "TALOS_SECRETS"
)

// Run runs `talops action <command>`; with no command it reads the `command` input
// (the root action.yml passes it that way).
func Run(ctx context.Context, d *door.Deps, args []string) error {
	gha := githubactions.New(githubactions.WithGetenv(d.Getenv), githubactions.WithWriter(d.Stdout))

	a := &runner{d: d, gha: gha}

	command := gha.GetInput(InputCommand)
	if len(args) > 0 {
		command = args[0]
	}

	if command == "-h" || command == "--help" || command == "help" {
		// Asked for by a person at a terminal: plain help, not a workflow command.
		return d.Out(usage())
	}

	a.d = a.secretInputs()
	a.d = a.talosconfigInput()

	run, known := commands[command]

	var err error

	switch {
	case command == "":
		err = &app.UsageError{Msg: "action: no command (pass one as an argument or the command input)"}
	case !known:
		err = &app.UsageError{Msg: fmt.Sprintf("action: unknown command %q", command)}
	default:
		var res *result
		if res, err = run(a, ctx); err == nil {
			err = a.finish(res)
		}
	}

	a.reportError(err)

	return err
}

// usage is the help of `talops action`, for a person reading it outside a workflow.
func usage() string {
	names := slices.Sorted(maps.Keys(commands))

	return "Usage: talops action <command>\n\n" +
		"Runs a command as a GitHub Action step: its inputs are the step's INPUT_* variables,\n" +
		"its results are step outputs, annotations and the job summary.\n\n" +
		"Commands: " + strings.Join(names, ", ") + "\n"
}

// commands are the action's commands: each maps its inputs onto a use case and returns
// what the step logs, summarises and sets as outputs.
var commands = map[string]func(*runner, context.Context) (*result, error){
	"validate":   (*runner).validate,
	"plan":       (*runner).plan,
	"apply":      (*runner).apply,
	"schematics": (*runner).schematics,
	"versions":   (*runner).versions,
	"backup":     (*runner).backup,
}

// result is what a command leaves for the runner to write, in this order.
type result struct {
	// commands are talops' own workflow commands (annotations), printed first, masked and
	// live; log is printed to the step's log after them, inert (no line of it is a
	// command); summary is appended to the job summary.
	commands, log, summary string
	// post runs once the summary is written (the pull request's comment).
	post    func()
	outputs map[string]string
	// err is the command's own failure, returned once everything is written; failed, when
	// set, fails the step with findings already reported.
	err    error
	failed string
}

// finish writes what a command left: the log, the summary, the comment, the outputs.
func (a *runner) finish(r *result) error {
	if r.commands != "" {
		if err := a.d.CommandsView(func(w io.Writer) error { _, err := io.WriteString(w, r.commands); return err }); err != nil {
			return err
		}
	}

	if r.log != "" {
		// Out masks the log and keeps its content from issuing workflow commands.
		if err := a.d.Out(r.log); err != nil {
			return err
		}
	}

	if err := a.summary(r.summary); err != nil {
		return errors.Join(r.err, err)
	}

	if r.post != nil {
		r.post()
	}

	if err := a.outputs(r.outputs); err != nil {
		return errors.Join(r.err, err)
	}

	switch {
	case r.err != nil:
		return r.err
	case r.failed != "":
		return &door.FailedError{Msg: r.failed}
	}

	return nil
}

type runner struct {
	d   *door.Deps
	gha *githubactions.Action
	// ev is the event payload, read once (evErr: why it could not be).
	ev    *event
	evErr error
}

// secretInputs makes the secret inputs visible to the secrets loader as the variables it
// reads, and masks them before anything else is printed.
func (a *runner) secretInputs() *door.Deps {
	overrides := map[string]string{}

	if v := a.gha.GetInput(InputSOPSAgeKey); v != "" {
		overrides[envSOPSAgeKey] = v
	}

	if v := a.gha.GetInput(InputTalosSecrets); v != "" {
		overrides[envTalosSecretsVar] = v
	}

	// Age keys are masked line by line at once; a bundle's values are masked once it is
	// parsed (maskSecrets), so its YAML keys do not become masks.
	for _, line := range MaskLines(overrides[envSOPSAgeKey]) {
		if !strings.HasPrefix(line, "#") {
			a.gha.AddMask(line)
		}
	}

	for _, v := range overrides {
		a.d.Mask(v)
	}

	if len(overrides) == 0 {
		return a.d
	}

	return a.d.WithEnv(overrides)
}

// maskSecrets registers every secret value talops knows with the runner's masking,
// so later steps' logs are masked too.
func (a *runner) maskSecrets() {
	for _, v := range a.d.Masker().Values() {
		for _, line := range MaskLines(v) {
			a.gha.AddMask(line)
		}
	}
}

// MaskLines splits a value into what the runner can mask: it masks line by line, so a
// PEM key is registered as its base64 lines (its BEGIN/END markers are not secret).
func MaskLines(v string) []string {
	var out []string

	for _, line := range strings.Split(v, "\n") {
		line = strings.TrimSpace(line)
		if len(line) < 6 || strings.HasPrefix(line, "-----") {
			continue
		}

		out = append(out, line)
	}

	return out
}

// reportError turns a failure before any findings into an annotation and a summary line.
func (a *runner) reportError(err error) {
	var failed *door.FailedError
	if err == nil || errors.As(err, &failed) {
		return
	}

	a.maskSecrets()

	for _, e := range cluster.Split(err) {
		var ie *cluster.InputError
		if errors.As(e, &ie) && ie.File != "" {
			// A problem in the user's files lands on the file and line to fix.
			fields := map[string]string{"file": ie.File, "title": "talops"}
			if ie.Line > 0 {
				fields["line"] = strconv.Itoa(ie.Line)
			}

			msg := ie.Msg
			if ie.Field != "" {
				msg = ie.Field + ": " + msg
			}

			a.gha.WithFieldsMap(fields).Errorf("%s", a.d.Masker().String(msg))

			continue
		}

		for _, line := range strings.Split(a.d.Masker().String(e.Error()), "\n") {
			if line != "" {
				a.gha.Errorf("%s", line)
			}
		}
	}

	_ = a.summary("### talops\n\n```\n" + a.d.Masker().String(err.Error()) + "\n```\n")
}

// summary appends markdown to the job summary; the runner's file may be missing when
// run by hand, which is not an error worth failing for.
func (a *runner) summary(markdown string) (err error) {
	if markdown == "" || a.d.Getenv("GITHUB_STEP_SUMMARY") == "" {
		return nil
	}

	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("write job summary: %v", r)
		}
	}()

	a.gha.AddStepSummary(a.d.Masker().String(markdown))

	return nil
}

// outputs sets step outputs in the runner's output file. Each value is framed by a
// random delimiter, so no value can end the frame early and forge another output.
func (a *runner) outputs(kv map[string]string) error {
	path := a.d.Getenv("GITHUB_OUTPUT")
	if path == "" {
		return nil
	}

	var b strings.Builder

	for _, k := range slices.Sorted(maps.Keys(kv)) {
		v := a.d.Masker().String(kv[k])

		delim, err := delimiter(v)
		if err != nil {
			return err
		}

		fmt.Fprintf(&b, "%s<<%s\n%s\n%s\n", k, delim, v, delim)
	}

	if err := a.d.AppendFile(path, []byte(b.String())); err != nil {
		return fmt.Errorf("write outputs: %w", err)
	}

	return nil
}

// delimiter returns a random frame delimiter that does not occur in v.
func delimiter(v string) (string, error) {
	for {
		var buf [16]byte
		if _, err := rand.Read(buf[:]); err != nil {
			return "", fmt.Errorf("output delimiter: %w", err)
		}

		d := "ghadelimiter_" + hex.EncodeToString(buf[:])
		if !strings.Contains(v, d) {
			return d, nil
		}
	}
}

func boolInput(gha *githubactions.Action, name string) (bool, error) {
	v := gha.GetInput(name)
	if v == "" {
		return false, nil
	}

	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, &app.UsageError{Msg: fmt.Sprintf("input %s must be true or false, got %q", name, v)}
	}

	return b, nil
}

// annotations are the workflow commands for findings: annotations on the files to fix.
func annotations(fs []finding.Finding) string {
	var b strings.Builder

	for _, a := range report.Annotations(fs) {
		b.WriteString(a + "\n")
	}

	return b.String()
}

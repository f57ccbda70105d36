package action

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/report"
)

// The backup action's inputs. The S3 credentials are no input: they come from the
// step's AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, as on the command line.
const (
	InputTo         = "to"
	InputFrom       = "from"
	InputS3Endpoint = "s3-endpoint"
	InputS3Region   = "s3-region"
	InputRecipients = "recipients"
	InputKeep       = "keep"
	InputKeepWithin = "keep-within"
	InputVerify     = "verify"
)

// backup takes a backup (talops backup) or, with the verify input, runs the drill on one
// (talops backup verify): latest, or a backup's name.
func (a *runner) backup(ctx context.Context) (*result, error) {
	s3 := app.S3Options{Endpoint: a.gha.GetInput(InputS3Endpoint), Region: a.gha.GetInput(InputS3Region)}

	if verify := a.gha.GetInput(InputVerify); verify != "" {
		return a.backupVerify(ctx, verify, s3)
	}

	opts := app.BackupOptions{Dir: a.dir(), Talosconfig: a.talosconfig(), To: a.gha.GetInput(InputTo), S3: s3, KeepWithin: a.gha.GetInput(InputKeepWithin)}

	for _, line := range strings.Split(a.gha.GetInput(InputRecipients), "\n") {
		if r := strings.TrimSpace(line); r != "" {
			opts.Recipients = append(opts.Recipients, r)
		}
	}

	if v := a.gha.GetInput(InputKeep); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, &app.UsageError{Msg: fmt.Sprintf("input keep must be a number of backups, 1 or more, got %q", v)}
		}

		opts.Keep = n
	}

	res, err := app.Backup(ctx, a.d.App(), opts)
	if err != nil {
		return nil, err
	}

	v := report.BackupView{Written: &res.Manifest, Store: res.Store, Contents: res.Contents, PassedOver: res.PassedOver, Deleted: res.Deleted}
	if res.Verified {
		v.Verified = &res.Manifest
	}

	deleted, err := json.Marshal(append([]string{}, res.Deleted...))
	if err != nil {
		return nil, err
	}

	return a.backupResult(v, map[string]string{"backup": res.Manifest.Name, "revision": strconv.FormatInt(res.Manifest.Revision, 10), "deleted": string(deleted)})
}

func (a *runner) backupVerify(ctx context.Context, verify string, s3 app.S3Options) (*result, error) {
	opts := app.VerifyOptions{Dir: a.dir(), From: a.gha.GetInput(InputFrom), S3: s3, Latest: verify == "latest"}
	if !opts.Latest {
		opts.Name = verify
	}

	res, err := app.BackupVerify(ctx, a.d.App(), opts)
	if err != nil {
		return nil, err
	}

	return a.backupResult(report.BackupView{Verified: &res.Manifest, Store: res.Store, Contents: res.Contents},
		map[string]string{"backup": res.Manifest.Name, "revision": strconv.FormatInt(res.Manifest.Revision, 10), "deleted": "[]"})
}

// backupResult logs the view and puts it in the job summary as it is, in a code block.
func (a *runner) backupResult(v report.BackupView, outputs map[string]string) (*result, error) {
	var b strings.Builder
	if err := report.Backup(&b, v); err != nil {
		return nil, err
	}

	text := b.String()

	return &result{log: text, summary: "### talops backup\n\n```\n" + text + "```\n", outputs: outputs}, nil
}

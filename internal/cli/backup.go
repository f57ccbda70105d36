package cli

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/backup"
	"github.com/talops/talops/internal/report"
)

// BackupOptions are backup's inputs.
type BackupOptions struct {
	Deps *Deps

	// BackupOptions are backup's own options, declared once, in the application layer.
	app.BackupOptions
}

// BackupListOptions are backup list's inputs.
type BackupListOptions struct {
	Deps *Deps

	// BackupListOptions are backup list's own options, declared once, in the application
	// layer.
	app.BackupListOptions
}

// BackupVerifyOptions are backup verify's inputs.
type BackupVerifyOptions struct {
	Deps *Deps

	// VerifyOptions are backup verify's own options, declared once, in the application layer.
	app.VerifyOptions
}

const destinationHelp = "a directory or s3://bucket/prefix (default: talops.yaml's backup.to, else $XDG_STATE_HOME/talops/backups, else ~/.local/state/talops/backups)"

// placeFlags binds what every backup command reaches backups with: the repository whose
// talops.yaml's backup: section gives the defaults, and an S3 bucket's endpoint and region.
func placeFlags(fs *flag.FlagSet, dir *string, s3 *app.S3Options) {
	fs.StringVar(dir, "dir", ".", "repository directory holding talops.yaml")
	fs.StringVar(&s3.Endpoint, "s3-endpoint", "", "S3 API of an s3:// destination, https://host[:port] (http:// only to a loopback address; default: talops.yaml's backup.s3Endpoint); credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	fs.StringVar(&s3.Region, "s3-region", "", "region of an s3:// destination (default: talops.yaml's backup.s3Region, else us-east-1)")
}

const (
	backupUsage       = "backup [--dir D] [--talosconfig F] [--to DEST] [--s3-endpoint URL] [--s3-region R] [--recipient R ...] [--keep N] [--keep-within AGE]"
	backupListUsage   = "backup list [--dir D] [--from DEST] [--s3-endpoint URL] [--s3-region R]"
	backupVerifyUsage = "backup verify [--dir D] [--from DEST] [--s3-endpoint URL] [--s3-region R] [--latest | NAME]"
)

func backupFlags(d *Deps, args []string) (*BackupOptions, error) {
	opts := &BackupOptions{Deps: d}

	fs := newFlags(d, "backup", backupUsage+"\n       talops "+backupListUsage+"\n       talops "+backupVerifyUsage)
	placeFlags(fs, &opts.Dir, &opts.S3)
	fs.StringVar(&opts.Talosconfig, "talosconfig", "", "talosconfig (default $TALOSCONFIG, then ~/.talos/config)")
	fs.StringVar(&opts.To, "to", "", "where the backup goes: "+destinationHelp)
	fs.Var((*listFlag)(&opts.Recipients), "recipient", "age recipient (age1...) the snapshot is encrypted to, repeatable (default: the recipients of the SOPS secrets file)")
	fs.IntVar(&opts.Keep, "keep", 0, "once the new backup is written and verified, keep the N newest backups of the cluster and delete the older ones (default: talops.yaml's backup.keep, else every one)")
	fs.StringVar(&opts.KeepWithin, "keep-within", "", "once the new backup is written and verified, keep every backup of the cluster younger than AGE (30d, 4w, 12h) and delete the older ones (default: talops.yaml's backup.keepWithin); with --keep, a backup either keeps stays")

	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}

	return opts, nil
}

func backupListFlags(d *Deps, args []string) (*BackupListOptions, error) {
	opts := &BackupListOptions{Deps: d}

	fs := newFlags(d, "backup list", backupListUsage)
	placeFlags(fs, &opts.Dir, &opts.S3)
	fs.StringVar(&opts.From, "from", "", "where the backups are: "+destinationHelp)

	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}

	return opts, nil
}

func backupVerifyFlags(d *Deps, args []string) (*BackupVerifyOptions, error) {
	opts := &BackupVerifyOptions{Deps: d}

	fs := newFlags(d, "backup verify", backupVerifyUsage)
	placeFlags(fs, &opts.Dir, &opts.S3)
	fs.StringVar(&opts.From, "from", "", "where the backup is: "+destinationHelp)
	fs.BoolVar(&opts.Latest, "latest", false, "verify the newest backup (the default without NAME)")

	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}

	switch fs.NArg() {
	case 0:
	case 1:
		opts.Name = fs.Arg(0)
	default:
		return nil, &app.UsageError{Msg: fmt.Sprintf("unexpected argument %q: verify takes one backup's name (run talops backup verify -h)", fs.Arg(1))}
	}

	if opts.Latest && opts.Name != "" {
		return nil, &app.UsageError{Msg: "--latest and a backup's name cannot go together"}
	}

	return opts, nil
}

func runBackup(ctx context.Context, d *Deps, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "list":
			opts, err := backupListFlags(d, args[1:])
			if err != nil {
				return err
			}

			return BackupList(ctx, opts)
		case "verify":
			opts, err := backupVerifyFlags(d, args[1:])
			if err != nil {
				return err
			}

			return BackupVerify(ctx, opts)
		}
	}

	opts, err := backupFlags(d, args)
	if err != nil {
		return err
	}

	return Backup(ctx, opts)
}

// Backup takes a backup (see app.Backup) and says what it holds.
func Backup(ctx context.Context, opts *BackupOptions) error {
	d := opts.Deps

	res, err := app.Backup(ctx, d.App(), opts.BackupOptions)
	if err != nil {
		return err
	}

	return d.View(func(w io.Writer) error {
		return report.Backup(w, report.BackupView{Written: &res.Manifest, Store: res.Store, Contents: res.Contents, PassedOver: res.PassedOver, Verified: verifiedIf(res), Deleted: res.Deleted})
	})
}

// BackupList lists the backups of a destination.
func BackupList(ctx context.Context, opts *BackupListOptions) error {
	d := opts.Deps

	store, entries, err := app.BackupList(ctx, d.App(), opts.BackupListOptions)
	if err != nil {
		return err
	}

	v := report.BackupView{List: true, Store: store}
	for _, e := range entries {
		be := report.BackupEntry{Name: e.Name, Manifest: e.Manifest}
		if e.Err != nil {
			be.Err = e.Err.Error()
		}

		v.Listed = append(v.Listed, be)
	}

	return d.View(func(w io.Writer) error { return report.Backup(w, v) })
}

// BackupVerify runs the drill on one backup: it fails on any mismatch.
func BackupVerify(ctx context.Context, opts *BackupVerifyOptions) error {
	d := opts.Deps

	res, err := app.BackupVerify(ctx, d.App(), opts.VerifyOptions)
	if err != nil {
		return err
	}

	return d.View(func(w io.Writer) error {
		return report.Backup(w, report.BackupView{Verified: &res.Manifest, Store: res.Store, Contents: res.Contents})
	})
}

// verifiedIf is the new backup's manifest when it passed the drill.
func verifiedIf(res *app.BackupResult) *backup.Manifest {
	if !res.Verified {
		return nil
	}

	return &res.Manifest
}

package app

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"filippo.io/age"
	"github.com/siderolabs/talos/pkg/machinery/config/configloader"

	"github.com/talops/talops/internal/backup"
	"github.com/talops/talops/internal/backupstore"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/talos"
)

// BackupOptions are backup's inputs.
type BackupOptions struct {
	// Dir is the repository directory holding talops.yaml.
	Dir string
	// Talosconfig is the talosconfig file ("": $TALOSCONFIG, then ~/.talos/config).
	Talosconfig string
	// To is the destination ("": talops.yaml's backup.to, else the user's state directory,
	// BackupDestination).
	To string
	// S3 are an s3:// destination's endpoint and region.
	S3 S3Options
	// Recipients are the age recipients to encrypt to (none: those of the cluster's SOPS
	// secrets file).
	Recipients []string
	// Keep and KeepWithin are the retention (0 and "": talops.yaml's backup.keep and
	// backup.keepWithin): after the new backup is written and verified, the older backups
	// of the cluster neither keeps are deleted.
	Keep       int
	KeepWithin string
}

// S3Options are an s3:// destination's endpoint and region ("": talops.yaml's
// backup.s3Endpoint and backup.s3Region).
type S3Options struct {
	Endpoint string
	Region   string
}

// BackupResult is a backup written: its manifest, where, and what its snapshot holds.
type BackupResult struct {
	Manifest backup.Manifest
	Store    string
	Contents backup.Contents
	// Passed over are the control planes not asked for the snapshot, and why.
	PassedOver []string
	// Verified says the new backup passed backup verify's drill, which retention asks for
	// before it deletes anything; Deleted are the backups the retention deleted.
	Verified bool
	Deleted  []string
}

// Backup streams an etcd snapshot from a healthy member (a voting member whose etcd
// reports no error, asked in the order of talops.yaml), through SHA-256 and age encryption
// into the destination, reads it with etcd's code on the way (its revision and contents),
// then writes the manifest: the snapshot is a backup only once its manifest is there.
func Backup(ctx context.Context, d *Deps, opts BackupOptions) (*BackupResult, error) {
	c, err := loadCluster(d.OpenDir, opts.Dir, opts.Dir, nil)
	if err != nil {
		return nil, err
	}

	retention, err := backupRetention(opts, c.Spec.Backup)
	if err != nil {
		return nil, err
	}

	recipients, err := backupRecipients(opts.Recipients, c)
	if err != nil {
		return nil, err
	}

	if len(recipients) == 0 {
		return nil, errors.New("the backup has no age recipient to be encrypted to: the secrets file is not SOPS/age-encrypted (pass --recipient R)")
	}

	store, err := backupStore(d, c.Spec.Backup, opts.To, opts.S3)
	if err != nil {
		return nil, err
	}

	// Retention deletes only once the new backup passed the drill, which decrypts it: the
	// key is asked for before anything is taken.
	var ids []age.Identity
	if retention.Any() {
		if ids, err = backupIdentities(d); err != nil {
			return nil, fmt.Errorf("retention deletes old backups only once the new one is verified: %w", err)
		}
	}

	dl, err := dialer(d, opts.Talosconfig)
	if err != nil {
		return nil, err
	}

	n, name, passedOver, err := healthyMember(ctx, d, dl, c)
	if err != nil {
		return nil, err
	}
	defer n.Close() //nolint:errcheck // the snapshot is read

	m, contents, err := writeBackup(ctx, d, c, store, n, name, recipients, opts.Dir)
	if err != nil {
		return nil, err
	}

	res := &BackupResult{Manifest: m, Store: store.String(), Contents: contents, PassedOver: passedOver}
	if !retention.Any() {
		return res, nil
	}

	if _, err := verifyIn(ctx, d, store, m.Name, ids); err != nil {
		return nil, fmt.Errorf("the new backup fails its drill, so no old backup was deleted: %w", err)
	}

	res.Verified = true
	res.Deleted, err = expire(ctx, store, retention, m)

	return res, err
}

// writeBackup streams the snapshot of node n (name: its name in talops.yaml, or its
// hostname) into the store, then writes the manifest: the snapshot is a backup only once
// its manifest is there.
func writeBackup(ctx context.Context, d *Deps, c *cluster.Cluster, store backup.Store, n talos.Node, name string, recipients []age.Recipient, dir string) (backup.Manifest, backup.Contents, error) {
	now, err := clock(d)
	if err != nil {
		return backup.Manifest{}, backup.Contents{}, err
	}

	m := backup.Manifest{Name: backup.Name(c.Spec.Cluster.Name, now), Cluster: c.Spec.Cluster.Name, Time: now.UTC(), Node: name}
	m.Snapshot = m.Name + backup.SnapshotSuffix
	m.TalosVersion, m.KubernetesVersion = runningVersions(ctx, d, n)
	m.Commit = commit(ctx, d, dir)

	contents, err := streamSnapshot(ctx, d, n, store, m.Snapshot, recipients, &m)
	if err != nil {
		return backup.Manifest{}, backup.Contents{}, fmt.Errorf("back up etcd from %s: %w", name, err)
	}

	m.Revision = contents.Revision

	data, err := m.Encode()
	if err != nil {
		return backup.Manifest{}, backup.Contents{}, err
	}

	if err := store.Put(ctx, m.Name+backup.ManifestSuffix, bytes.NewReader(data)); err != nil {
		return backup.Manifest{}, backup.Contents{}, err
	}

	return m, contents, nil
}

// backupRetention is the retention given, else the backup: section's.
func backupRetention(opts BackupOptions, section *cluster.Backup) (backup.Retention, error) {
	r := section.Retention()

	if opts.Keep < 0 {
		return backup.Retention{}, &UsageError{Msg: fmt.Sprintf("--keep %d: keep at least 1 backup", opts.Keep)}
	}

	if opts.Keep > 0 {
		r.Keep = opts.Keep
	}

	if opts.KeepWithin != "" {
		within, err := backup.ParseAge(opts.KeepWithin)
		if err != nil {
			return backup.Retention{}, &UsageError{Msg: "--keep-within " + err.Error()}
		}

		r.KeepWithin = within
	}

	return r, nil
}

// expire deletes the backups of m's cluster the retention lets go, the manifest first (a
// snapshot without one is no backup, whatever happens to the rest), never m itself.
func expire(ctx context.Context, store backup.Store, r backup.Retention, m backup.Manifest) ([]string, error) {
	objects, err := store.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list %s for the retention: %w", store, err)
	}

	var deleted []string

	for _, name := range r.Expired(backup.Names(objects), m.Cluster, m.Time) {
		if name == m.Name {
			continue
		}

		for _, object := range []string{name + backup.ManifestSuffix, name + backup.SnapshotSuffix} {
			if err := store.Delete(ctx, object); err != nil {
				return deleted, fmt.Errorf("retention: delete backup %s from %s: %w", name, store, err)
			}
		}

		deleted = append(deleted, name)
	}

	return deleted, nil
}

// BackupDestination is where backups go and come from without --to or --from: the user's
// state directory, beside apply's snapshots.
func BackupDestination(d *Deps) string {
	if dir := defaultBackupDir(d); dir != "" {
		return filepath.Join(filepath.Dir(dir), "backups")
	}

	return ""
}

// backupStore opens the destination given, else talops.yaml's backup: section's (nil: no
// section), else the user's state directory; an s3:// destination's endpoint and region
// are those given, else the section's, its credentials those of the environment.
func backupStore(d *Deps, section *cluster.Backup, dest string, s3 S3Options) (backup.Store, error) {
	if section != nil {
		dest = cmp.Or(dest, section.To)
		s3.Endpoint = cmp.Or(s3.Endpoint, section.S3Endpoint)
		s3.Region = cmp.Or(s3.Region, section.S3Region)
	}

	if dest == "" {
		if dest = BackupDestination(d); dest == "" {
			return nil, &UsageError{Msg: "backups have no default place: no $XDG_STATE_HOME or $HOME; name one with --to or --from, or talops.yaml's backup.to"}
		}
	}

	if d.BackupStore == nil {
		return nil, errors.New("app: no backup store (Deps.BackupStore)")
	}

	if d.Mask != nil {
		// Nothing prints them; should a server or library quote one, the masker hides it.
		d.Mask(d.Getenv("AWS_SECRET_ACCESS_KEY"), d.Getenv("AWS_SESSION_TOKEN"))
	}

	return d.BackupStore(dest, backupstore.Options{Endpoint: s3.Endpoint, Region: s3.Region, Getenv: d.Getenv})
}

// backupSection is the backup: section of the repository at dir, nil when the directory
// holds no talops.yaml (list and verify also run where only backups are).
func backupSection(d *Deps, dir string) (*cluster.Backup, error) {
	if d.OpenDir == nil {
		return nil, errors.New("app: no repository reader (Deps.OpenDir)")
	}

	files, closeDir, err := d.OpenDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}

	if err != nil {
		return nil, fmt.Errorf("open repository directory %s: %w", dir, err)
	}

	_, err = files.ReadFile(cluster.FileName)
	closeDir() //nolint:errcheck // read-only

	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}

	c, err := loadCluster(d.OpenDir, dir, dir, nil)
	if err != nil {
		return nil, err
	}

	return c.Spec.Backup, nil
}

// healthyMember dials the control planes in order and returns the first whose etcd member
// votes and reports no error: a member outside quorum reports one ("etcdserver: no
// leader"), or cannot list the members at all.
func healthyMember(ctx context.Context, d *Deps, dl talos.Dialer, c *cluster.Cluster) (talos.Node, string, []string, error) {
	var passedOver []string

	for _, cp := range c.Spec.Nodes {
		if cp.Role != cluster.RoleControlPlane {
			continue
		}

		n, err := dl.Dial(ctx, cp.Address)
		if err == nil {
			if err = memberHealth(ctx, d, n); err == nil {
				return n, cp.Name, passedOver, nil
			}

			n.Close() //nolint:errcheck // passed over
		}

		passedOver = append(passedOver, fmt.Sprintf("%s (%s): %s", cp.Name, cp.Address, talos.OneLine(err)))
	}

	if len(passedOver) == 0 {
		return nil, "", nil, errors.New("talops.yaml has no control plane to take the etcd snapshot from")
	}

	return nil, "", passedOver, fmt.Errorf("no control plane has a healthy etcd member to take the snapshot from:\n%s", strings.Join(passedOver, "\n"))
}

func memberHealth(ctx context.Context, d *Deps, n talos.Node) error {
	cctx, cancel := context.WithTimeout(ctx, orDefault(d.TalosTimeout, talos.DefaultTimeout))
	defer cancel()

	members, err := n.EtcdMembers(cctx)
	if err != nil {
		return fmt.Errorf("etcd members: %w", err)
	}

	names, err := n.Hostnames(cctx)
	if err != nil {
		return fmt.Errorf("hostname: %w", err)
	}

	i := slices.IndexFunc(members, func(m talos.EtcdMember) bool { return slices.Contains(names, m.Hostname) })

	switch {
	case i < 0:
		return errors.New("not an etcd member")
	case members[i].Learner:
		return errors.New("a learner, not a voting etcd member")
	}

	errs, err := n.EtcdErrors(cctx)
	if err != nil {
		return fmt.Errorf("etcd status: %w", err)
	}

	if len(errs) > 0 {
		return fmt.Errorf("etcd reports %s", strings.Join(errs, "; "))
	}

	return nil
}

// runningVersions are the node's Talos version and its API server's Kubernetes version
// ("" for what it does not say).
func runningVersions(ctx context.Context, d *Deps, n talos.Node) (talosVersion, kubernetes string) {
	cctx, cancel := context.WithTimeout(ctx, orDefault(d.TalosTimeout, talos.DefaultTimeout))
	defer cancel()

	talosVersion, _ = n.Version(cctx)

	if data, err := n.MachineConfig(cctx); err == nil {
		if cfg, err := configloader.NewFromBytes(data); err == nil {
			kubernetes = plan.ImageVersion(plan.ComponentImage(cfg, plan.K8sAPIServer))
		}
	}

	return talosVersion, kubernetes
}

// commit is the repository's commit, "" outside a Git work tree or without git.
func commit(ctx context.Context, d *Deps, dir string) string {
	if d.Git == nil {
		return ""
	}

	out, err := d.Git(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return ""
	}

	return strings.TrimSpace(string(out))
}

// streamSnapshot streams the snapshot through SHA-256 and age into the store and, at the
// same time, through etcd's reader: nothing holds it whole in memory. m gets its size and
// hash.
func streamSnapshot(ctx context.Context, d *Deps, n talos.Node, store backup.Store, object string, recipients []age.Recipient, m *backup.Manifest) (backup.Contents, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	sealedR, sealedW := io.Pipe()

	put := make(chan error, 1)

	go func() {
		err := store.Put(ctx, object, sealedR)
		// A store that stops reading unblocks the stream.
		sealedR.CloseWithError(orEOF(err))
		put <- err
	}()

	sealed, err := age.Encrypt(sealedW, recipients...)
	if err != nil {
		sealedW.CloseWithError(err)
		<-put //nolint:errcheck // the store failed because the encryption did

		return backup.Contents{}, err
	}

	hash := sha256.New()
	size := &counter{}
	plainW, read := readAlong(d)

	err = n.EtcdSnapshot(ctx, io.MultiWriter(hash, size, sealed, plainW))
	if err == nil {
		err = sealed.Close()
	}

	sealedW.CloseWithError(err)
	plainW.CloseWithError(err)

	putErr := <-put
	contents, readErr := read()

	// The stream's error first: a store or reader that failed made the stream fail with
	// its error, and a stream that failed fails both.
	for _, err := range []error{err, putErr, readErr} {
		if err != nil {
			return backup.Contents{}, err
		}
	}

	m.Size = size.n
	m.SHA256 = hex.EncodeToString(hash.Sum(nil))

	return contents, nil
}

// readAlong starts etcd's reader over what is written to w; read waits for what it found.
// Without a reader, w discards and read finds nothing.
func readAlong(d *Deps) (w *io.PipeWriter, read func() (backup.Contents, error)) {
	plainR, plainW := io.Pipe()

	if d.ReadSnapshot == nil {
		go io.Copy(io.Discard, plainR) //nolint:errcheck // nothing reads the snapshot

		return plainW, func() (backup.Contents, error) { return backup.Contents{}, nil }
	}

	type result struct {
		c   backup.Contents
		err error
	}

	done := make(chan result, 1)

	go func() {
		c, err := d.ReadSnapshot(plainR)
		plainR.CloseWithError(orEOF(err))
		done <- result{c, err}
	}()

	return plainW, func() (backup.Contents, error) {
		r := <-done

		return r.c, r.err
	}
}

func orEOF(err error) error {
	if err == nil {
		return io.EOF
	}

	return err
}

// counter counts the bytes written to it.
type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) {
	c.n += int64(len(p))

	return len(p), nil
}

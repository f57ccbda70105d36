package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"filippo.io/age"

	"github.com/talops/talops/internal/backup"
	"github.com/talops/talops/internal/secrets/sops"
)

// maxManifest bounds a manifest read: a manifest is a few hundred bytes.
const maxManifest = 1 << 20

// BackupListEntry is one backup of a store: its manifest, or why it cannot be read.
type BackupListEntry struct {
	Name     string
	Manifest *backup.Manifest
	Err      error
}

// BackupListOptions are backup list's inputs.
type BackupListOptions struct {
	// Dir is the repository directory whose talops.yaml's backup: section names the
	// destination (none there: no section).
	Dir string
	// From is the destination ("": the backup: section's, else BackupDestination).
	From string
	// S3 are an s3:// destination's endpoint and region.
	S3 S3Options
}

// BackupList lists the backups of the destination, oldest first; a manifest that cannot
// be read is listed with its error.
func BackupList(ctx context.Context, d *Deps, opts BackupListOptions) (string, []BackupListEntry, error) {
	section, err := backupSection(d, opts.Dir)
	if err != nil {
		return "", nil, err
	}

	store, err := backupStore(d, section, opts.From, opts.S3)
	if err != nil {
		return "", nil, err
	}

	objects, err := store.List(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("list %s: %w", store, err)
	}

	var out []BackupListEntry

	for _, name := range backup.Names(objects) {
		m, err := readManifest(ctx, store, name)
		if err != nil {
			out = append(out, BackupListEntry{Name: name, Err: err})

			continue
		}

		out = append(out, BackupListEntry{Name: name, Manifest: &m})
	}

	return store.String(), out, nil
}

// VerifyOptions are backup verify's inputs.
type VerifyOptions struct {
	// Dir is the repository directory whose talops.yaml's backup: section names the
	// destination (none there: no section).
	Dir string
	// From is the destination ("": the backup: section's, else BackupDestination).
	From string
	// S3 are an s3:// destination's endpoint and region.
	S3 S3Options
	// Name is the backup to verify; Latest (or no Name) verifies the newest.
	Name   string
	Latest bool
}

// VerifyResult is a backup that passed: its manifest and what its snapshot holds.
type VerifyResult struct {
	Manifest backup.Manifest
	Store    string
	Contents backup.Contents
}

// VerifyError says a backup failed its drill: it could not be restored as it is.
type VerifyError struct {
	Name   string
	Reason string
}

func (e *VerifyError) Error() string { return "backup " + e.Name + ": " + e.Reason }

// BackupVerify is the drill that needs no cluster: it fetches the backup, decrypts it
// with the age identities sops finds, checks its size and SHA-256 against the manifest and
// reads it with etcd's code (pages, etcd's own hash, the revision).
func BackupVerify(ctx context.Context, d *Deps, opts VerifyOptions) (*VerifyResult, error) {
	if opts.Latest && opts.Name != "" {
		return nil, &UsageError{Msg: "--latest and a backup's name cannot go together"}
	}

	section, err := backupSection(d, opts.Dir)
	if err != nil {
		return nil, err
	}

	store, err := backupStore(d, section, opts.From, opts.S3)
	if err != nil {
		return nil, err
	}

	name, err := verifiedName(ctx, store, opts.Name)
	if err != nil {
		return nil, err
	}

	ids, err := backupIdentities(d)
	if err != nil {
		return nil, err
	}

	return verifyIn(ctx, d, store, name, ids)
}

// backupIdentities are the age identities sops finds, at least one.
func backupIdentities(d *Deps) ([]age.Identity, error) {
	ids, err := sops.IdentitiesFromEnv(d.Getenv, d.ReadFile)
	if err != nil {
		return nil, err
	}

	if len(ids) == 0 {
		return nil, errors.New("no age identity to decrypt the backup with: set SOPS_AGE_KEY_FILE or SOPS_AGE_KEY, or keep the key in sops' default key file")
	}

	return ids, nil
}

// verifyIn runs the drill on the backup name of the store: its manifest read and held to
// what its snapshot is.
func verifyIn(ctx context.Context, d *Deps, store backup.Store, name string, ids []age.Identity) (*VerifyResult, error) {
	m, err := readManifest(ctx, store, name)
	if err != nil {
		return nil, err
	}

	fail := func(format string, args ...any) error {
		return &VerifyError{Name: name, Reason: fmt.Sprintf(format, args...)}
	}

	if m.Name != name || m.Snapshot != name+backup.SnapshotSuffix {
		return nil, fail("its manifest is that of %s (%s)", m.Name, m.Snapshot)
	}

	if d.ReadSnapshot == nil {
		return nil, errors.New("app: no snapshot reader (Deps.ReadSnapshot)")
	}

	contents, err := drill(ctx, d, store, m, ids, fail)
	if err != nil {
		return nil, err
	}

	return &VerifyResult{Manifest: m, Store: store.String(), Contents: contents}, nil
}

// drill decrypts the backup's snapshot, hashes it and reads it with etcd's code, and
// holds what it found to the manifest.
func drill(ctx context.Context, d *Deps, store backup.Store, m backup.Manifest, ids []age.Identity, fail func(string, ...any) error) (backup.Contents, error) {
	sealed, err := store.Get(ctx, m.Snapshot)
	if err != nil {
		return backup.Contents{}, fail("%v", err)
	}
	defer sealed.Close() //nolint:errcheck // read-only

	plain, err := age.Decrypt(sealed, ids...)

	var noMatch *age.NoIdentityMatchError

	switch {
	case errors.As(err, &noMatch):
		return backup.Contents{}, fail("none of the age identities found (SOPS_AGE_KEY, SOPS_AGE_KEY_FILE, sops' key file) is a recipient of it")
	case err != nil:
		return backup.Contents{}, fail("the encrypted snapshot is damaged: %v", err)
	}

	dec := &errReader{r: plain}
	hash := sha256.New()
	size := &counter{}

	tee := io.TeeReader(dec, io.MultiWriter(hash, size))
	contents, err := d.ReadSnapshot(tee)

	// A reader that stopped early (a full disk) leaves the rest: hashed too, so the
	// manifest is compared with the whole snapshot and the reader's error is told as it is.
	if _, derr := io.Copy(io.Discard, tee); derr != nil && dec.err == nil {
		dec.err = derr
	}

	switch {
	case dec.err != nil && !errors.Is(dec.err, io.EOF):
		// age authenticates every chunk and the last one: a flipped byte or a cut-off
		// object fails here, before anything else is believed.
		return backup.Contents{}, fail("the encrypted snapshot is damaged or truncated: %v", dec.err)
	case size.n != m.Size:
		return backup.Contents{}, fail("its snapshot is %d bytes, the manifest says %d", size.n, m.Size)
	case hex.EncodeToString(hash.Sum(nil)) != m.SHA256:
		return backup.Contents{}, fail("its snapshot's SHA-256 is not the manifest's")
	case err != nil:
		return backup.Contents{}, fail("%v", err)
	case m.Revision != 0 && contents.Revision != m.Revision:
		return backup.Contents{}, fail("its snapshot is at revision %d, the manifest says %d", contents.Revision, m.Revision)
	}

	return contents, nil
}

// verifiedName is the backup named, else the newest of the store.
func verifiedName(ctx context.Context, store backup.Store, name string) (string, error) {
	if name != "" {
		return name, nil
	}

	objects, err := store.List(ctx)
	if err != nil {
		return "", fmt.Errorf("list %s: %w", store, err)
	}

	names := backup.Names(objects)
	if len(names) == 0 {
		return "", fmt.Errorf("%s holds no backup", store)
	}

	return names[len(names)-1], nil
}

func readManifest(ctx context.Context, store backup.Store, name string) (backup.Manifest, error) {
	r, err := store.Get(ctx, name+backup.ManifestSuffix)
	if err != nil {
		return backup.Manifest{}, fmt.Errorf("backup %s: %w", name, err)
	}
	defer r.Close() //nolint:errcheck // read-only

	data, err := io.ReadAll(io.LimitReader(r, maxManifest+1))
	if err != nil {
		return backup.Manifest{}, fmt.Errorf("backup %s: read its manifest: %w", name, err)
	}

	if len(data) > maxManifest {
		return backup.Manifest{}, &VerifyError{Name: name, Reason: "its manifest is over 1 MiB: not a backup manifest"}
	}

	m, err := backup.DecodeManifest(data)
	if err != nil {
		return backup.Manifest{}, &VerifyError{Name: name, Reason: err.Error()}
	}

	return m, nil
}

// errReader remembers the error its reader returned.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.err = err
	}

	return n, err
}

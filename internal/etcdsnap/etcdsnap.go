// Package etcdsnap reads an etcd snapshot with etcd's own storage code (bbolt): it checks
// the database's pages, and counts its revision, live keys and Kubernetes objects per
// resource without reading a value. A snapshot is a bbolt file, so the stream is spooled
// to a temporary file (mode 0600, removed before Read returns).
package etcdsnap

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"runtime/debug"
	"time"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/talops/talops/internal/backup"
)

// CorruptError says the snapshot cannot be what etcd wrote: a bad page, a truncated file,
// a hash that does not match, a key space etcd would not read.
type CorruptError struct{ Reason string }

func (e *CorruptError) Error() string { return "the etcd snapshot is corrupt: " + e.Reason }

func corrupt(format string, args ...any) error {
	return &CorruptError{Reason: fmt.Sprintf(format, args...)}
}

// Read spools r into a temporary file of dir ("": the system's) and reads it.
func Read(r io.Reader, dir string) (backup.Contents, error) {
	f, err := os.CreateTemp(dir, "talops-etcd-snapshot-*.db")
	if err != nil {
		return backup.Contents{}, fmt.Errorf("spool the etcd snapshot: %w", err)
	}

	// The plain snapshot holds every Secret of the cluster: it lives no longer than this.
	defer os.Remove(f.Name()) //nolint:errcheck // nothing left to do when it cannot be removed

	// CreateTemp's mode is 0600 whatever the umask; said again so a reader need not know.
	if err := f.Chmod(0o600); err != nil {
		f.Close() //nolint:errcheck // the chmod error matters more

		return backup.Contents{}, fmt.Errorf("spool the etcd snapshot: %w", err)
	}

	th := &tailHash{h: sha256.New()}

	size, err := io.Copy(io.MultiWriter(f, th), r)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}

	if err != nil {
		return backup.Contents{}, fmt.Errorf("spool the etcd snapshot: %w", err)
	}

	// etcd's snapshot stream ends with the SHA-256 of the database before it, which makes
	// its size 32 more than a multiple of 512 (etcdutl's restore checks it the same way).
	etcdHash := size%512 == sha256.Size
	if etcdHash && !bytes.Equal(th.h.Sum(nil), th.tail[:]) {
		return backup.Contents{}, corrupt("etcd's SHA-256 at its end does not match the database")
	}

	c, err := readDB(f.Name(), size)
	c.EtcdHash = etcdHash

	return c, err
}

// readDB opens the database read-only and reads it. bbolt maps the file into memory: a
// page it follows past the end of a damaged file faults, and a fault here is an error of
// this snapshot, not a crash of talops.
func readDB(path string, size int64) (c backup.Contents, err error) {
	if size == 0 {
		return c, corrupt("it is empty")
	}

	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))

	defer func() {
		if p := recover(); p != nil {
			err = corrupt("bbolt cannot read it: %v", p)
		}
	}()

	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return c, corrupt("bbolt cannot open it: %v", err)
	}
	defer db.Close() //nolint:errcheck // read-only

	err = db.View(func(tx *bolt.Tx) error {
		// Pages past the end of the file are a truncated snapshot: bbolt would fault on them.
		if tx.Size() > size {
			return corrupt("truncated: its database is %d bytes long, the file %d", tx.Size(), size)
		}

		// The count first: it walks the key space here, where a fault is recovered from;
		// bbolt's check walks every page in a goroutine of its own.
		if c, err = count(tx); err != nil {
			return err
		}

		for cerr := range tx.Check(bolt.WithKVStringer(redacted{})) {
			if err == nil {
				err = corrupt("%v", cerr)
			}
		}

		return err
	})

	return c, err
}

// Where etcd's mvcc store keeps the key space: bucket "key", each entry keyed by its
// revision (8 bytes main, '_', 8 bytes sub, and a 't' when it marks a deletion), its value
// an mvccpb.KeyValue.
const (
	revLen       = 17
	tombstoneLen = revLen + 1
)

var keyBucket = []byte("key")

// count walks the key space in revision order: a key is live when its newest entry is no
// deletion. Only each entry's key field is decoded, never its value.
func count(tx *bolt.Tx) (backup.Contents, error) {
	b := tx.Bucket(keyBucket)
	if b == nil {
		return backup.Contents{}, corrupt("it has no %q bucket: not an etcd snapshot", keyBucket)
	}

	live := map[string]struct{}{}

	var rev int64

	err := b.ForEach(func(k, v []byte) error {
		if (len(k) != revLen && len(k) != tombstoneLen) || k[8] != '_' || (len(k) == tombstoneLen && k[revLen] != 't') {
			return corrupt("a key of bucket %q is no revision", keyBucket)
		}

		main := int64(binary.BigEndian.Uint64(k[:8])) //nolint:gosec // etcd writes revisions as int64
		if main < rev {
			return corrupt("revisions out of order")
		}

		rev = main

		key, err := kvKey(v)
		if err != nil {
			return corrupt("revision %d: %v", main, err)
		}

		if len(k) == tombstoneLen {
			delete(live, string(key))
		} else {
			live[string(key)] = struct{}{}
		}

		return nil
	})
	if err != nil {
		return backup.Contents{}, err
	}

	c := backup.Contents{Revision: rev, Keys: len(live), Resources: map[string]int{}}

	for k := range live {
		if r, ok := backup.Resource([]byte(k)); ok {
			c.Resources[r]++
		}
	}

	return c, nil
}

// kvKey is field 1 (key) of an mvccpb.KeyValue; the other fields are skipped unread.
func kvKey(b []byte) ([]byte, error) {
	var key []byte

	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, errors.New("its entry is no etcd key-value")
		}

		b = b[n:]

		if num == 1 && typ == protowire.BytesType {
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return nil, errors.New("its entry is no etcd key-value")
			}

			key, b = v, b[n:]

			continue
		}

		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return nil, errors.New("its entry is no etcd key-value")
		}

		b = b[n:]
	}

	if key == nil {
		return nil, errors.New("its entry has no key")
	}

	return key, nil
}

// tailHash hashes all but the last sha256.Size bytes written to it, and keeps those.
type tailHash struct {
	h    hash.Hash
	tail [sha256.Size]byte
	n    int // bytes of tail in use
}

func (t *tailHash) Write(p []byte) (int, error) {
	written := len(p)

	if len(p) >= sha256.Size {
		t.h.Write(t.tail[:t.n])
		t.h.Write(p[:len(p)-sha256.Size])
		t.n = copy(t.tail[:], p[len(p)-sha256.Size:])

		return written, nil
	}

	// A short write: what no longer fits the tail goes to the hash.
	over := t.n + len(p) - sha256.Size
	if over > 0 {
		t.h.Write(t.tail[:over])
		t.n = copy(t.tail[:], t.tail[over:t.n])
	}

	t.n += copy(t.tail[t.n:], p)

	return written, nil
}

// redacted names no key and no value in bbolt's findings: a value may be a Secret.
type redacted struct{}

func (redacted) KeyToString([]byte) string   { return "(key)" }
func (redacted) ValueToString([]byte) string { return "(value)" }

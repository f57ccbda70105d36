// Package etcdsnaptest builds real etcd snapshots for tests: a bbolt database laid out as
// etcd's mvcc store lays it out, followed by etcd's SHA-256 of it, as etcd streams one.
package etcdsnaptest

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/encoding/protowire"
)

// Op is one change of the key space: a put of Key with Value, or its deletion.
type Op struct {
	Key, Value string
	Delete     bool
}

// Put sets key to value.
func Put(key, value string) Op { return Op{Key: key, Value: value} }

// Delete deletes key.
func Delete(key string) Op { return Op{Key: key, Delete: true} }

// Snapshot is the snapshot of a key space after ops, one revision each from revision 2
// (etcd's first change), ending with etcd's hash.
func Snapshot(t testing.TB, ops ...Op) []byte {
	t.Helper()

	data := Database(t, ops...)
	sum := sha256.Sum256(data)

	return append(data, sum[:]...)
}

// Database is the bbolt database alone, without etcd's hash after it.
func Database(t testing.TB, ops ...Op) []byte {
	t.Helper()

	path := filepath.Join(t.TempDir(), "db")

	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}

	err = db.Update(func(tx *bolt.Tx) error {
		keys, err := tx.CreateBucket([]byte("key"))
		if err != nil {
			return err
		}

		meta, err := tx.CreateBucket([]byte("meta"))
		if err != nil {
			return err
		}

		versions := map[string]int64{}

		for i, op := range ops {
			rev := int64(i + 2)
			k := binary.BigEndian.AppendUint64(nil, uint64(rev)) //nolint:gosec // small and positive
			k = append(k, '_')
			k = binary.BigEndian.AppendUint64(k, 0)

			var v []byte
			v = protowire.AppendTag(v, 1, protowire.BytesType)
			v = protowire.AppendBytes(v, []byte(op.Key))

			if op.Delete {
				k = append(k, 't')
				delete(versions, op.Key)
			} else {
				versions[op.Key]++
				v = protowire.AppendTag(v, 3, protowire.VarintType)
				v = protowire.AppendVarint(v, uint64(rev)) //nolint:gosec // small and positive
				v = protowire.AppendTag(v, 4, protowire.VarintType)
				v = protowire.AppendVarint(v, uint64(versions[op.Key])) //nolint:gosec // small and positive
				v = protowire.AppendTag(v, 5, protowire.BytesType)
				v = protowire.AppendBytes(v, []byte(op.Value))
			}

			if err := keys.Put(k, v); err != nil {
				return err
			}
		}

		return meta.Put([]byte("consistent_index"), binary.BigEndian.AppendUint64(nil, uint64(len(ops)+1))) //nolint:gosec // small
	})
	if err != nil {
		t.Fatal(err)
	}

	return written(t, db)
}

// written is the database as etcd's snapshot writes it (bbolt's Tx.WriteTo): its pages up
// to the high-water mark, not the file's preallocated tail.
func written(t testing.TB, db *bolt.DB) []byte {
	t.Helper()

	var buf bytes.Buffer
	if err := db.View(func(tx *bolt.Tx) error {
		_, err := tx.WriteTo(&buf)

		return err
	}); err != nil {
		t.Fatal(err)
	}

	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	return buf.Bytes()
}

// Bolt is a bbolt database with one empty bucket of that name: a database, not etcd's.
func Bolt(t testing.TB, bucket string) []byte {
	t.Helper()

	path := filepath.Join(t.TempDir(), "db")

	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}

	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucket([]byte(bucket))

		return err
	}); err != nil {
		t.Fatal(err)
	}

	return written(t, db)
}

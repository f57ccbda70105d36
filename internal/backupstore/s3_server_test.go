//go:build s3

package backupstore_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/backup"
	"github.com/talops/talops/internal/backupstore"
	"github.com/talops/talops/internal/backupstore/s3test"
)

func openS3(t *testing.T, srv *s3test.Server, dest string, env map[string]string) backup.Store {
	t.Helper()

	s, err := backupstore.OpenWith(dest, backupstore.Options{Endpoint: srv.Endpoint, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}

	return s
}

func TestS3_PutGetListDeleteAgainstARealServer(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	srv := s3test.Start(t)
	s := openS3(t, srv, "s3://"+srv.Bucket+"/clusters/homelab", srv.Env())
	other := openS3(t, srv, "s3://"+srv.Bucket+"/clusters", srv.Env())

	// Three parts and a bit: the upload is multipart, its length unknown.
	big := make([]byte, 3*backupstore.PartSize+12345)
	rand.Read(big)

	if err := s.Put(ctx, "a.snapshot.age", struct{ io.Reader }{bytes.NewReader(big)}); err != nil {
		t.Fatal(err)
	}

	if err := s.Put(ctx, "a.json", strings.NewReader("{}")); err != nil {
		t.Fatal(err)
	}

	if err := s.Put(ctx, "a.json", strings.NewReader("again")); err == nil || err.Error() != "write s3://backups/clusters/homelab/a.json: object exists" {
		t.Errorf("an object was replaced: %v", err)
	}

	got, err := s.List(ctx)
	slices.Sort(got)

	if err != nil || !slices.Equal(got, []string{"a.json", "a.snapshot.age"}) {
		t.Errorf("List = %v, %v", got, err)
	}

	// The prefix above holds only what is right under it.
	if got, err := other.List(ctx); err != nil || len(got) != 0 {
		t.Errorf("the prefix above lists %v, %v", got, err)
	}

	r, err := s.Get(ctx, "a.snapshot.age")
	if err != nil {
		t.Fatal(err)
	}

	data, err := io.ReadAll(r)
	r.Close() //nolint:errcheck // read-only

	if err != nil || !bytes.Equal(data, big) {
		t.Errorf("read back %d bytes (%v), wrote %d", len(data), err, len(big))
	}

	if _, err := s.Get(ctx, "b.json"); !errors.Is(err, backup.ErrNotFound) {
		t.Errorf("a missing object: %v", err)
	}

	if err := s.Delete(ctx, "a.json"); err != nil {
		t.Fatal(err)
	}

	if err := s.Delete(ctx, "a.json"); err != nil {
		t.Errorf("deleting what is gone: %v", err)
	}

	if got, _ := s.List(ctx); !slices.Equal(got, []string{"a.snapshot.age"}) {
		t.Errorf("after the delete: %v", got)
	}
}

func TestS3_AnUploadCutOffLeavesNoObject(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	srv := s3test.Start(t)
	s := openS3(t, srv, "s3://"+srv.Bucket+"/p", srv.Env())

	// More than a part, then the stream fails: the parts sent are never an object.
	cut := io.MultiReader(io.LimitReader(rand.Reader, backupstore.PartSize+1000), &failing{})

	if err := s.Put(ctx, "a.snapshot.age", cut); err == nil {
		t.Fatal("a cut stream was written")
	}

	if got, err := s.List(ctx); err != nil || len(got) != 0 {
		t.Errorf("a cut stream left %v (%v)", got, err)
	}

	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}

	for u := range client.ListIncompleteUploads(ctx, srv.Bucket, "p/", true) {
		t.Errorf("a cut stream left an upload: %+v", u)
	}
}

func TestS3_WrongCredentialsAndAMissingBucketAreSaidInOneLine(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	srv := s3test.Start(t)

	wrong := map[string]string{"AWS_ACCESS_KEY_ID": srv.AccessKey, "AWS_SECRET_ACCESS_KEY": "not-the-secret-key"}

	tests := []struct {
		name    string
		dest    string
		env     map[string]string
		wantErr string
	}{
		{"a wrong secret key", "s3://" + srv.Bucket + "/p", wrong, "S3 endpoint " + srv.Endpoint + ": access to the bucket backups denied (SignatureDoesNotMatch): check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and the key's rights on the bucket"},
		{"an unknown access key", "s3://" + srv.Bucket + "/p", map[string]string{"AWS_ACCESS_KEY_ID": "AKIDUNKNOWN", "AWS_SECRET_ACCESS_KEY": "not-the-secret-key"}, "S3 endpoint " + srv.Endpoint + ": access to the bucket backups denied (XAdminUserNotFound): check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and the key's rights on the bucket"},
		{"a missing bucket", "s3://nobucket/p", srv.Env(), "S3 endpoint " + srv.Endpoint + ": the bucket nobucket does not exist"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openS3(t, srv, tt.dest, tt.env).List(ctx)
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("List = %v\nwant %s", err, tt.wantErr)
			}

			if err != nil && (strings.Contains(err.Error(), srv.SecretKey) || strings.Contains(err.Error(), "not-the-secret-key")) {
				t.Errorf("a key was said: %v", err)
			}
		})
	}

	// Writing fails the same way, and leaves nothing behind.
	err := openS3(t, srv, "s3://nobucket/p", srv.Env()).Put(ctx, "a.json", strings.NewReader("{}"))
	if err == nil || err.Error() != "write s3://nobucket/p/a.json: S3 endpoint "+srv.Endpoint+": the bucket nobucket does not exist" {
		t.Errorf("Put = %v", err)
	}
}

package backupstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/talops/talops/internal/backup"
)

// PartSize is the part a snapshot is uploaded in: S3's smallest (but for the last), so an
// upload of unknown length holds one part of memory, whatever the snapshot's size (up to
// 10,000 parts, some 48 GiB; etcd's database stops at 8 GiB).
const PartSize = 5 << 20

// maxRetries bounds the retries of one request: an endpoint that does not answer is said
// in seconds, not after minio-go's ten.
const maxRetries = 3

// Options are what a destination needs beyond its name: for an S3 bucket its endpoint
// and region, and the environment the credentials come from.
type Options struct {
	// Endpoint is the S3 API's URL: https://host[:port] (http:// only to a loopback
	// address).
	Endpoint string
	// Region is the bucket's region ("": us-east-1, what most S3-compatible servers take).
	Region string
	// Getenv reads AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, the only
	// place credentials come from.
	Getenv func(string) string
	// Transport carries the requests (nil: a clone of http.DefaultTransport).
	Transport http.RoundTripper
}

// S3 is a prefix of a bucket of an S3-compatible server, addressed by path (MinIO, Garage,
// SeaweedFS and versitygw serve buckets that way).
type S3 struct {
	client   *minio.Client
	bucket   string
	prefix   string
	endpoint string
}

// endpointURL checks the endpoint: https, or http to a loopback address only (credentials
// and backups cross it).
func endpointURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, errors.New("no S3 endpoint: set backup.s3Endpoint in talops.yaml or pass --s3-endpoint https://host[:port]")
	}

	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return nil, fmt.Errorf("S3 endpoint %q: not https://host[:port]", raw)
	}

	switch u.Scheme {
	case "https":
		return u, nil
	case "http":
		if loopback(u.Hostname()) {
			return u, nil
		}

		return nil, fmt.Errorf("S3 endpoint %s: http:// only to a loopback address; use https://", raw)
	default:
		return nil, fmt.Errorf("S3 endpoint %q: not https://host[:port]", raw)
	}
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}

	ip := net.ParseIP(host)

	return ip != nil && ip.IsLoopback()
}

// OpenS3 opens s3://bucket/prefix at the endpoint o names with the credentials of the
// environment. Nothing is asked of the server yet.
func OpenS3(dest string, o Options) (*S3, error) {
	bucket, prefix, err := backup.ParseS3(dest)
	if err != nil {
		return nil, err
	}

	u, err := endpointURL(o.Endpoint)
	if err != nil {
		return nil, fmt.Errorf("backup destination %s: %w", dest, err)
	}

	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}

	id, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY")
	if id == "" || secret == "" {
		return nil, fmt.Errorf("backup destination %s: no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", dest)
	}

	tr := o.Transport
	if tr == nil {
		tr = http.DefaultTransport.(*http.Transport).Clone()
	}

	client, err := minio.New(u.Host, &minio.Options{
		Creds:        credentials.NewStaticV4(id, secret, getenv("AWS_SESSION_TOKEN")),
		Secure:       u.Scheme == "https",
		Region:       o.Region,
		BucketLookup: minio.BucketLookupPath,
		Transport:    tr,
		MaxRetries:   maxRetries,
	})
	if err != nil {
		return nil, fmt.Errorf("backup destination %s: S3 endpoint %s: %w", dest, u.Host, err)
	}

	return &S3{client: client, bucket: bucket, prefix: prefix, endpoint: u.Scheme + "://" + u.Host}, nil
}

func (s *S3) String() string {
	if s.prefix == "" {
		return "s3://" + s.bucket
	}

	return "s3://" + s.bucket + "/" + s.prefix
}

func (s *S3) key(name string) string {
	if s.prefix == "" {
		return name
	}

	return s.prefix + "/" + name
}

// Put uploads the object in parts of PartSize, its length unknown: the server makes it
// appear only when the upload completes, and an upload that fails is aborted.
func (s *S3) Put(ctx context.Context, name string, r io.Reader) error {
	if err := checkName(name); err != nil {
		return err
	}

	_, err := s.client.StatObject(ctx, s.bucket, s.key(name), minio.StatObjectOptions{})

	switch {
	case err == nil:
		return fmt.Errorf("write %s/%s: object exists", s, name)
	case minio.ToErrorResponse(err).Code != minio.NoSuchKey:
		return s.explain("write "+s.String()+"/"+name, err)
	}

	if _, err := s.client.PutObject(ctx, s.bucket, s.key(name), r, -1, minio.PutObjectOptions{PartSize: PartSize, ContentType: "application/octet-stream"}); err != nil {
		return s.explain("write "+s.String()+"/"+name, err)
	}

	return nil
}

// Get opens the object; a missing object is backup.ErrNotFound.
func (s *S3) Get(ctx context.Context, name string) (io.ReadCloser, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}

	obj, err := s.client.GetObject(ctx, s.bucket, s.key(name), minio.GetObjectOptions{})
	if err == nil {
		_, err = obj.Stat()
	}

	if err != nil {
		if obj != nil {
			obj.Close() //nolint:errcheck // the request's error matters
		}

		if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
			return nil, fmt.Errorf("%s/%s: %w", s, name, backup.ErrNotFound)
		}

		return nil, s.explain("read "+s.String()+"/"+name, err)
	}

	return obj, nil
}

// List names the objects right under the prefix.
func (s *S3) List(ctx context.Context) ([]string, error) {
	var (
		out    []string
		prefix string
	)

	if s.prefix != "" {
		prefix = s.prefix + "/"
	}

	for o := range s.client.ListObjectsIter(ctx, s.bucket, minio.ListObjectsOptions{Prefix: prefix}) {
		if o.Err != nil {
			return nil, s.explain("", o.Err)
		}

		if name := strings.TrimPrefix(o.Key, prefix); name != "" && !strings.HasSuffix(name, "/") {
			out = append(out, name)
		}
	}

	return out, nil
}

// Delete removes the object; one already gone is no error.
func (s *S3) Delete(ctx context.Context, name string) error {
	if err := checkName(name); err != nil {
		return err
	}

	if err := s.client.RemoveObject(ctx, s.bucket, s.key(name), minio.RemoveObjectOptions{}); err != nil && minio.ToErrorResponse(err).Code != minio.NoSuchKey {
		return s.explain("delete "+s.String()+"/"+name, err)
	}

	return nil
}

// deniedCodes are the codes servers refuse a request's credentials with: AWS's, and those
// an S3-compatible server says in its own words with another status than 403 (versitygw
// answers a key it does not know with 400 XAdminUserNotFound).
var deniedCodes = []string{"AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken", "XAdminUserNotFound"}

// explain turns what the server or the network said into one line naming the endpoint and
// the bucket, never a credential (minio-go's messages hold none, nor do the URLs it
// dials). doing names the object, or is "" for what the caller names (a listing).
func (s *S3) explain(doing string, err error) error {
	where := "S3 endpoint " + s.endpoint
	if doing != "" {
		where = doing + ": " + where
	}

	var netErr net.Error

	resp := minio.ToErrorResponse(err)

	switch code := resp.Code; {
	case code == minio.NoSuchBucket:
		return fmt.Errorf("%s: the bucket %s does not exist", where, s.bucket)
	case resp.StatusCode == http.StatusForbidden, slices.Contains(deniedCodes, code):
		return fmt.Errorf("%s: access to the bucket %s denied (%s): check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and the key's rights on the bucket", where, s.bucket, code)
	case code != "":
		return fmt.Errorf("%s: bucket %s: %s (%s)", where, s.bucket, oneLine(err.Error()), code)
	case errors.As(err, &netErr), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s does not answer: %s", where, oneLine(err.Error()))
	default:
		return fmt.Errorf("%s: bucket %s: %s", where, s.bucket, oneLine(err.Error()))
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// checkName refuses an object name that is no plain name under the prefix.
func checkName(name string) error {
	if name == "" || name != path.Base(name) || strings.HasPrefix(name, ".") {
		return fmt.Errorf("%q is no backup object name", name)
	}

	return nil
}

package backup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Manifest describes one backup; it is written beside the snapshot as <name>.json. It holds
// no secret: the snapshot's contents are only in the encrypted object.
type Manifest struct {
	// Name is the backup's name (Name), Snapshot the object holding the encrypted snapshot.
	Name     string `json:"name"`
	Snapshot string `json:"snapshot"`
	Cluster  string `json:"cluster"`
	// Time is when the snapshot was taken, in UTC.
	Time time.Time `json:"time"`
	// Node is the control plane whose etcd member served the snapshot.
	Node string `json:"node"`
	// Revision is etcd's revision in the snapshot (0: unknown).
	Revision int64 `json:"revision,omitempty"`
	// Size and SHA256 are those of the plain snapshot, before encryption.
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// TalosVersion is what the node ran, KubernetesVersion its API server's version.
	TalosVersion      string `json:"talosVersion,omitempty"`
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// Commit is the repository's commit at the time ("" outside a Git work tree).
	Commit string `json:"commit,omitempty"`
}

// Encode is the manifest as written: indented JSON, with a final newline.
func (m Manifest) Encode() ([]byte, error) {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}

	return append(data, '\n'), nil
}

// DecodeManifest reads a manifest; a field it does not know, or one missing that every
// backup has, is an error (a manifest edited by hand or of another tool).
func DecodeManifest(data []byte) (Manifest, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()

	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("not a backup manifest: %w", err)
	}

	switch {
	case m.Name == "", m.Snapshot == "", m.Cluster == "", m.SHA256 == "", m.Time.IsZero():
		return Manifest{}, fmt.Errorf("not a backup manifest: name, snapshot, cluster, time and sha256 are required")
	case m.Size < 0:
		return Manifest{}, fmt.Errorf("not a backup manifest: size %d", m.Size)
	}

	return m, nil
}

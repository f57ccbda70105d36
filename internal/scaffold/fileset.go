package scaffold

import (
	"bytes"
	"fmt"
)

// FileSet collects the files of a repository being written, in the order they are added,
// each path once: the same path with other contents is an error of whatever generates
// them (an import mapping two sources onto one file).
type FileSet struct {
	data  map[string][]byte
	order []string
}

// Add adds a file; adding it again with the same contents is a no-op.
func (s *FileSet) Add(rel string, data []byte) error {
	if old, ok := s.data[rel]; ok {
		if !bytes.Equal(old, data) {
			return fmt.Errorf("two different files would be written to %s", rel)
		}

		return nil
	}

	if s.data == nil {
		s.data = map[string][]byte{}
	}

	s.data[rel] = data
	s.order = append(s.order, rel)

	return nil
}

// Files are the files in the order they were added.
func (s *FileSet) Files() []File {
	out := make([]File, 0, len(s.order))
	for _, rel := range s.order {
		out = append(out, File{Path: rel, Data: s.data[rel]})
	}

	return out
}

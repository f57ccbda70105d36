package talhelper

import (
	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cluster"
)

// expandMerges replaces every merge key (`<<: *anchor`, `<<: [*a, *b]`) with the keys it
// brings, as talhelper's parser (yaml.v3) reads a mapping: the mapping's own keys first and
// winning, then those of each merged mapping in order, the first one that has a key
// winning; the last merge key of a mapping is the one read. A merged value that is no
// mapping is an error, as talhelper fails on it. Merged values are shared, not copied.
func expandMerges(file string, root *yaml.Node) error {
	m := &merger{file: file, done: map[*yaml.Node]bool{}, busy: map[*yaml.Node]bool{}}

	return m.expand(root)
}

type merger struct {
	file string
	// done are the nodes expanded; busy those being expanded (an anchor that contains
	// itself is left as it is, and the decoders refuse it).
	done, busy map[*yaml.Node]bool
}

func (m *merger) expand(n *yaml.Node) error {
	if n == nil || m.done[n] || m.busy[n] {
		return nil
	}

	m.busy[n] = true
	defer func() { delete(m.busy, n); m.done[n] = true }()

	if n.Kind == yaml.AliasNode {
		return m.expand(n.Alias)
	}

	for _, c := range n.Content {
		if err := m.expand(c); err != nil {
			return err
		}
	}

	if n.Kind != yaml.MappingNode {
		return nil
	}

	var (
		own   []*yaml.Node
		merge *yaml.Node
	)

	for i := 0; i+1 < len(n.Content); i += 2 {
		if isMergeKey(n.Content[i]) {
			merge = n.Content[i+1]

			continue
		}

		own = append(own, n.Content[i], n.Content[i+1])
	}

	if merge == nil {
		return nil
	}

	sources, err := m.sources(merge)
	if err != nil {
		return err
	}

	seen := map[string]bool{}
	for i := 0; i < len(own); i += 2 {
		seen[own[i].Value] = true
	}

	for _, s := range sources {
		for i := 0; i+1 < len(s.Content); i += 2 {
			if k := s.Content[i]; !seen[k.Value] {
				seen[k.Value] = true
				own = append(own, k, s.Content[i+1])
			}
		}
	}

	n.Content = own

	return nil
}

// sources are the mappings a merge key's value names, in order.
func (m *merger) sources(v *yaml.Node) ([]*yaml.Node, error) {
	list := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		list = v.Content
	}

	out := make([]*yaml.Node, 0, len(list))

	for _, s := range list {
		target := s
		if s.Kind == yaml.AliasNode {
			target = s.Alias
		}

		if target == nil || target.Kind != yaml.MappingNode {
			return nil, &cluster.InputError{File: m.file, Line: s.Line, Msg: "a merge key (<<) takes a mapping or a list of mappings, as talhelper's parser does"}
		}

		if err := m.expand(target); err != nil {
			return nil, err
		}

		out = append(out, target)
	}

	return out, nil
}

// isMergeKey says whether a key is the merge key: a plain or !!merge-tagged <<, not a
// quoted one.
func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" &&
		(k.Tag == "!!merge" || k.Tag == "tag:yaml.org,2002:merge" || (k.Tag == "" && k.Style == 0))
}

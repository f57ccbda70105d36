package sops

import (
	"strconv"
	"strings"
)

// pathRef is a YAML path such as "certs.etcd.crt" or "talos.sans[1]",
// rendered only when an error needs it: building every path eagerly costs
// time quadratic in the nesting depth.
type pathRef struct {
	parent *pathRef
	key    string
	index  int // position in a list, or -1 for a mapping key
	depth  int
}

func (p *pathRef) child(key string) *pathRef {
	return &pathRef{parent: p, key: key, index: -1, depth: p.level() + 1}
}

func (p *pathRef) item(i int) *pathRef {
	return &pathRef{parent: p, index: i, depth: p.level() + 1}
}

func (p *pathRef) level() int {
	if p == nil {
		return 0
	}
	return p.depth
}

func (p *pathRef) String() string {
	var parts []*pathRef
	for q := p; q != nil; q = q.parent {
		parts = append(parts, q)
	}
	var b strings.Builder
	for i := len(parts) - 1; i >= 0; i-- {
		q := parts[i]
		if q.index >= 0 {
			b.WriteString("[" + strconv.Itoa(q.index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(q.key)
	}
	return b.String()
}

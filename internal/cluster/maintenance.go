package cluster

import (
	"fmt"
	"strconv"
	"time"

	"github.com/talops/talops/internal/window"
)

// Schedule is the cluster's maintenance windows (an empty schedule when it has none: apply
// may run at any time). Load has checked the section, so an error here is a time zone
// this machine does not know.
func (c *Cluster) Schedule() (window.Schedule, error) {
	m := c.Spec.Maintenance
	if m == nil {
		return window.Schedule{}, nil
	}

	loc, err := location(m.TimeZone)
	if err != nil {
		return window.Schedule{}, inputErrorf(c.Path(FileName), c.Line("maintenance.timeZone"), "maintenance.timeZone", "%v", err)
	}

	s := window.Schedule{Location: loc}

	for _, w := range m.Windows {
		days, errD := window.ParseDays(w.Days)
		hour, minute, errS := window.ParseStart(w.Start)
		length, errL := window.ParseLength(w.Duration)

		if errD != nil || errS != nil || errL != nil {
			return window.Schedule{}, fmt.Errorf("maintenance window of %s: not checked", c.Path(FileName))
		}

		s.Windows = append(s.Windows, window.Window{Days: days, Hour: hour, Minute: minute, Length: length})
	}

	return s, nil
}

// location loads an IANA time zone ("": UTC).
func location(name string) (*time.Location, error) {
	if name == "" {
		return time.UTC, nil
	}

	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q: use an IANA name such as Europe/Berlin or UTC", name)
	}

	return loc, nil
}

// maintenance checks the maintenance: section, each problem on its line.
func (k *checker) maintenance() {
	m := k.c.Spec.Maintenance
	if m == nil {
		return
	}

	if _, err := location(m.TimeZone); err != nil {
		k.bad("maintenance.timeZone", "%v", err)
	}

	if len(m.Windows) == 0 {
		k.bad("maintenance.windows", "is empty: name at least one window, or remove maintenance: to let apply run at any time")
	}

	for i, w := range m.Windows {
		at := "maintenance.windows[" + strconv.Itoa(i) + "]"

		if _, err := window.ParseDays(w.Days); err != nil {
			k.bad(at+".days", "%v", err)
		}

		if _, _, err := window.ParseStart(w.Start); err != nil {
			k.bad(at+".start", "%v", err)
		}

		if _, err := window.ParseLength(w.Duration); err != nil {
			k.bad(at+".duration", "%v", err)
		}
	}
}

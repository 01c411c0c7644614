package testutil

import (
	"encoding/json"
	"testing"
)

// TimelineEvent is one event of Chrome trace-event JSON.
type TimelineEvent struct {
	Name string          `json:"name"`
	Ph   string          `json:"ph"`
	Cat  string          `json:"cat"`
	Pid  json.RawMessage `json:"pid"`
	Tid  json.RawMessage `json:"tid"`
	ID   json.RawMessage `json:"id"`
	Ts   json.Number     `json:"ts"`
	Args map[string]any  `json:"args"`
}

// CheckTimeline parses Chrome trace-event JSON and fails the test unless
// it is well formed: on each track "B" and "E" events pair up, never
// going back in time; async "b" and "e" events pair up by category and
// id. It returns the events.
func CheckTimeline(t testing.TB, data []byte) []TimelineEvent {
	t.Helper()
	var doc struct {
		TraceEvents []TimelineEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("timeline: %v", err)
	}
	if len(doc.TraceEvents) == 0 {
		t.Fatal("timeline: no events")
	}
	open := map[string][]string{}
	async := map[string]int{}
	last := map[string]float64{}
	for _, e := range doc.TraceEvents {
		track := string(e.Pid) + "/" + string(e.Tid)
		if e.Ph == "M" {
			continue
		}
		ts, err := e.Ts.Float64()
		if err != nil {
			t.Fatalf("timeline: %q: ts %q", e.Name, e.Ts)
		}
		switch e.Ph {
		case "B":
			open[track] = append(open[track], e.Name)
		case "E":
			st := open[track]
			if len(st) == 0 {
				t.Fatalf("timeline: an end on track %s at %v with nothing open", track, ts)
			}
			open[track] = st[:len(st)-1]
		case "b":
			async[e.Cat+"/"+string(e.ID)]++
		case "e":
			k := e.Cat + "/" + string(e.ID)
			if async[k] == 0 {
				t.Fatalf("timeline: async %q (%s) ends at %v, not begun", e.Name, k, ts)
			}
			async[k]--
		}
		if e.Ph == "B" || e.Ph == "E" {
			if ts < last[track] {
				t.Fatalf("timeline: track %s goes back in time at %q (%v < %v)", track, e.Name, ts, last[track])
			}
			last[track] = ts
		}
	}
	for track, st := range open {
		if len(st) > 0 {
			t.Errorf("timeline: track %s ends with %q open", track, st)
		}
	}
	for k, n := range async {
		if n != 0 {
			t.Errorf("timeline: async %s: %d begins without their end", k, n)
		}
	}
	return doc.TraceEvents
}

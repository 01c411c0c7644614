package cbf

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// Backtrace is the JSON form Swift's Backtrace takes through Codable:
//
//	{"architecture": "x86_64", "backtrace": "<base64 CBF>", "imageMap": "<base64 image map>"}
//
// imageMap is left out when there is none. Swift's base64 has no padding
// and its decoder also takes padding and the URL-safe alphabet; so do
// MarshalJSON and UnmarshalJSON. Swift's JSONEncoder escapes "/" as "\/"
// and orders keys as it likes; encoding/json does neither, so the JSON
// text differs while the values are the same.
type Backtrace struct {
	Architecture string
	// Backtrace is one CBF record.
	Backtrace []byte
	// ImageMap is a Compact Image Map Format map, nil when absent.
	ImageMap []byte
}

type backtraceJSON struct {
	Architecture string  `json:"architecture"`
	Backtrace    string  `json:"backtrace"`
	ImageMap     *string `json:"imageMap,omitempty"`
}

// ErrBase64 means a JSON backtrace or image map that is not base64.
var ErrBase64 = errors.New("cbf: bad base64")

// MarshalJSON writes b as Swift's Codable conformance does.
func (b Backtrace) MarshalJSON() ([]byte, error) {
	j := backtraceJSON{Architecture: b.Architecture, Backtrace: base64.RawStdEncoding.EncodeToString(b.Backtrace)}
	if b.ImageMap != nil {
		s := base64.RawStdEncoding.EncodeToString(b.ImageMap)
		j.ImageMap = &s
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what Swift's Codable conformance writes. The
// architecture and backtrace keys are required, as in Swift.
func (b *Backtrace) UnmarshalJSON(data []byte) error {
	var j struct {
		Architecture *string `json:"architecture"`
		Backtrace    *string `json:"backtrace"`
		ImageMap     *string `json:"imageMap"`
	}
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	if j.Architecture == nil || j.Backtrace == nil {
		return errors.New("cbf: JSON backtrace needs architecture and backtrace")
	}
	bt, err := decodeBase64(*j.Backtrace)
	if err != nil {
		return err
	}
	*b = Backtrace{Architecture: *j.Architecture, Backtrace: bt}
	if j.ImageMap != nil {
		if b.ImageMap, err = decodeBase64(*j.ImageMap); err != nil {
			return err
		}
	}
	return nil
}

// decodeBase64 takes either alphabet, with or without padding.
func decodeBase64(s string) ([]byte, error) {
	s = strings.TrimRight(s, "=")
	s = strings.NewReplacer("-", "+", "_", "/").Replace(s)
	out, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil {
		return nil, ErrBase64
	}
	return out, nil
}

// Frames decodes the backtrace record as a zero Reader does (as Swift's
// decoder does). The record belongs to the caller.
func (b Backtrace) Frames() (*Record, error) {
	r, err := NewReader(bytes.NewReader(b.Backtrace))
	if err != nil {
		return nil, err
	}
	rec, err := r.Read()
	if err != nil {
		return nil, err
	}
	return rec.Clone(), nil
}

// Images decodes the image map; it returns nil when there is none.
func (b Backtrace) Images() (*ImageMap, error) {
	if b.ImageMap == nil {
		return nil, nil
	}
	m, err := DecodeImageMap(b.ImageMap)
	if err != nil {
		return nil, err
	}
	return &m, nil
}

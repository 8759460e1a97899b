package grafana

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// encoding/json matches field names case-insensitively, so
// DisallowUnknownFields alone lets "gridpos" or "refid" through. exactKeys
// walks the JSON document beside the Go type and requires every object key
// to be spelled exactly as a field's json tag.
func exactKeys(data []byte, typ reflect.Type) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return err
	}
	return checkKeys(doc, typ, "$")
}

var rawMessage = reflect.TypeFor[json.RawMessage]()

func checkKeys(v any, typ reflect.Type, path string) error {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ == rawMessage {
		return nil
	}
	switch typ.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil // a type mismatch is reported by the decoder
		}
		fields := jsonFields(typ)
		for k, sub := range obj {
			f, ok := fields[k]
			if !ok {
				return fmt.Errorf("%s: key %q is not a field (keys are case-sensitive)", path, k)
			}
			if err := checkKeys(sub, f.Type, path+"."+k); err != nil {
				return err
			}
		}
	case reflect.Slice:
		arr, _ := v.([]any)
		for i, sub := range arr {
			if err := checkKeys(sub, typ.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		obj, _ := v.(map[string]any)
		for k, sub := range obj {
			if err := checkKeys(sub, typ.Elem(), path+"."+k); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonFields maps the exported fields of a struct type by json name.
func jsonFields(typ reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f
	}
	return out
}

func TestStrictDecodeRefusesWhatGrafanaWouldIgnore(t *testing.T) {
	good := `{"id":1,"type":"stat","title":"t","gridPos":{"h":1,"w":1,"x":0,"y":0}}`
	var p Panel
	if err := strictDecode([]byte(good), &p); err != nil {
		t.Fatalf("a well-formed panel: %v", err)
	}
	for _, bad := range []string{
		`{"id":1,"type":"stat","title":"t","gridpos":{"h":1,"w":1,"x":0,"y":0}}`,                    // case
		`{"id":1,"type":"stat","title":"t","gridPos":{"h":1,"w":1,"x":0,"y":0},"target":[]}`,        // unknown key
		`{"id":1,"type":"stat","title":"t","targets":[{"refID":"A","expr":"x","datasource":null}]}`, // nested case
		`{"id":1,"type":"stat","title":"t"} {}`,                                                     // trailing value
	} {
		if err := strictDecode([]byte(bad), &Panel{}); err == nil {
			t.Errorf("strictDecode accepted %s", bad)
		}
	}
}

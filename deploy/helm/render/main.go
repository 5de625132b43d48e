// Command render renders a Helm chart's templates the way `helm template` does for the features the Portico
// chart uses: Go's text/template with the sprig function library (Helm's own engine is text/template + sprig),
// plus Helm's include, tpl, required, toYaml, fromYaml and the .Values/.Release/.Chart/.Capabilities objects.
// Not covered: lookup, .Files, subcharts, hooks, and the schema check of values.schema.json.
//
//	go run . <chart dir> [values file ...] > manifests.yaml
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"github.com/ghodss/yaml"
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "render: "+format+"\n", args...)
	os.Exit(1)
}

func readYaml(path string) map[string]interface{} {
	data, err := os.ReadFile(path)
	if err != nil {
		fail("%v", err)
	}
	out := map[string]interface{}{}
	if err := yaml.Unmarshal(data, &out); err != nil {
		fail("%s: %v", path, err)
	}
	return out
}

// merge overlays src onto dst the way Helm merges values files: maps merge key by key, anything else replaces.
func merge(dst, src map[string]interface{}) map[string]interface{} {
	for k, v := range src {
		if sm, ok := v.(map[string]interface{}); ok {
			if dm, ok := dst[k].(map[string]interface{}); ok {
				dst[k] = merge(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
	return dst
}

func main() {
	if len(os.Args) < 2 {
		fail("usage: render <chart dir> [values file ...]")
	}
	chartDir := os.Args[1]
	chart := readYaml(filepath.Join(chartDir, "Chart.yaml"))
	values := readYaml(filepath.Join(chartDir, "values.yaml"))
	for _, file := range os.Args[2:] {
		values = merge(values, readYaml(file))
	}
	top := map[string]interface{}{
		"Values":       values,
		"Release":      map[string]interface{}{"Name": "portico", "Namespace": "portico", "Service": "Helm", "IsInstall": true, "IsUpgrade": false, "Revision": 1},
		"Chart":        map[string]interface{}{"Name": chart["name"], "Version": chart["version"], "AppVersion": chart["appVersion"]},
		"Capabilities": map[string]interface{}{"KubeVersion": map[string]interface{}{"Version": "v1.30.0", "Major": "1", "Minor": "30"}},
	}

	root := template.New("chart")
	funcs := sprig.TxtFuncMap()
	funcs["toYaml"] = func(v interface{}) string {
		data, err := yaml.Marshal(v)
		if err != nil {
			return ""
		}
		return strings.TrimSuffix(string(data), "\n")
	}
	funcs["fromYaml"] = func(s string) map[string]interface{} {
		out := map[string]interface{}{}
		_ = yaml.Unmarshal([]byte(s), &out)
		return out
	}
	funcs["required"] = func(message string, v interface{}) (interface{}, error) {
		if v == nil || v == "" {
			return nil, fmt.Errorf("%s", message)
		}
		return v, nil
	}
	funcs["include"] = func(name string, data interface{}) (string, error) {
		var buf bytes.Buffer
		err := root.ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
	funcs["tpl"] = func(text string, data interface{}) (string, error) {
		t, err := root.New("tpl").Parse(text)
		if err != nil {
			return "", err
		}
		var buf bytes.Buffer
		err = t.Execute(&buf, data)
		return buf.String(), err
	}
	root.Funcs(funcs).Option("missingkey=zero")

	// CRDs are installed as they are, before the templates (Helm's crds/ directory).
	crds, _ := filepath.Glob(filepath.Join(chartDir, "crds", "*.yaml"))
	sort.Strings(crds)
	for _, file := range crds {
		data, err := os.ReadFile(file)
		if err != nil {
			fail("%v", err)
		}
		fmt.Printf("---\n# Source: portico/crds/%s\n%s\n", filepath.Base(file), strings.TrimSpace(string(data)))
	}

	files, _ := filepath.Glob(filepath.Join(chartDir, "templates", "*"))
	sort.Strings(files)
	var manifests []string
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			fail("%v", err)
		}
		if _, err := root.New(filepath.Base(file)).Parse(string(data)); err != nil {
			fail("%s: %v", file, err)
		}
		if strings.HasSuffix(file, ".yaml") {
			manifests = append(manifests, filepath.Base(file))
		}
	}
	for _, name := range manifests {
		var buf bytes.Buffer
		if err := root.ExecuteTemplate(&buf, name, top); err != nil {
			fail("%s: %v", name, err)
		}
		if text := strings.TrimSpace(buf.String()); text != "" {
			fmt.Printf("---\n# Source: portico/templates/%s\n%s\n", name, text)
		}
	}
}

package main

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"
)

// configVar is one environment variable of Config, as its struct tags describe it.
type configVar struct {
	Key         string // the variable, with its envPrefix
	Group       string // the desc of the top-level field it sits under
	Desc        string
	Default     string // envDefault
	HasDefault  bool
	DefaultDesc string // the default in words, where it is computed at run time
	Min, Max    string
	MinLength   string
	Type        reflect.Type
	Index       []int // path from Config to the field
}

// configVars lists Config's variables in declaration order. Fields tagged env:"-" are set by
// the binary itself and are not variables.
func configVars() []configVar {
	var out []configVar
	walkConfig(reflect.TypeFor[Config](), "", "", nil, &out)
	return out
}

func walkConfig(t reflect.Type, prefix, group string, index []int, out *[]configVar) {
	for i := range t.NumField() {
		f := t.Field(i)
		path := append(append([]int{}, index...), i)
		name, _, _ := strings.Cut(f.Tag.Get("env"), ",")
		if name == "-" {
			continue
		}
		if f.Type.Kind() == reflect.Struct {
			g := group
			if g == "" {
				g = f.Tag.Get("desc")
			}
			walkConfig(f.Type, prefix+f.Tag.Get("envPrefix"), g, path, out)
			continue
		}
		def, hasDef := f.Tag.Lookup("envDefault")
		*out = append(*out, configVar{
			Key: prefix + name, Group: group, Desc: f.Tag.Get("desc"), Default: def, HasDefault: hasDef,
			DefaultDesc: f.Tag.Get("defaultDesc"), Min: f.Tag.Get("min"), Max: f.Tag.Get("max"),
			MinLength: f.Tag.Get("minLength"), Type: f.Type, Index: path,
		})
	}
}

// bounds says in words which values the variable accepts beyond its description.
func (v configVar) bounds() string {
	switch {
	case v.Type == reflect.TypeFor[time.Duration]():
		return "a positive duration"
	case v.MinLength != "":
		return "at least " + v.MinLength + " characters"
	case v.Min != "" && v.Max != "":
		return v.Min + " to " + v.Max
	case v.Min != "":
		return "at least " + v.Min
	}
	return ""
}

// defaultText is the default as help shows it.
func (v configVar) defaultText() string {
	switch {
	case v.DefaultDesc != "":
		return v.DefaultDesc
	case v.HasDefault:
		return v.Default
	}
	return "unset"
}

// writeConfigHelp prints every variable under its group: name, default, accepted values and
// meaning.
func writeConfigHelp(w io.Writer) {
	fmt.Fprintln(w, "Configuration (environment variables; an empty value is the default):")
	group := ""
	for _, v := range configVars() {
		if v.Group != group {
			group = v.Group
			fmt.Fprintf(w, "\n%s\n", group)
		}
		detail := "default: " + v.defaultText()
		if b := v.bounds(); b != "" {
			detail += "; " + b
		}
		fmt.Fprintf(w, "  %s  [%s]\n", v.Key, detail)
		for _, line := range wrapWords(v.Desc, 92) {
			fmt.Fprintf(w, "      %s\n", line)
		}
	}
}

// configMarkdown is the configuration section of docs/operations.md: one table per group.
func configMarkdown() string {
	var b strings.Builder
	group := ""
	for _, v := range configVars() {
		if v.Group != group {
			group = v.Group
			fmt.Fprintf(&b, "\n### %s\n\n| variable | default | meaning |\n|---|---|---|\n", group)
		}
		def := v.DefaultDesc
		if def == "" {
			def = "`" + v.Default + "`"
		}
		meaning := v.Desc
		if bounds := v.bounds(); bounds != "" {
			meaning += "; " + bounds
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", v.Key, escapeCell(def), escapeCell(meaning))
	}
	b.WriteString("\n")
	return b.String()
}

func escapeCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// wrapWords breaks text into lines of at most width characters (longer words stay whole).
func wrapWords(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

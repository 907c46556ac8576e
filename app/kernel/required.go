package kernel

import (
	"errors"
	"reflect"
	"strings"
)

// Port names one dependency handed to a capability's constructor.
type Port struct {
	Name  string
	Value any
}

// RequirePorts returns an error naming every port that is nil (an untyped nil, or a typed nil
// pointer, map, func or interface), so wiring that forgot one fails at start-up with the
// capability and the missing names rather than with a nil dereference on the first request.
func RequirePorts(capability string, ports ...Port) error {
	var missing []string
	for _, p := range ports {
		if isNil(p.Value) {
			missing = append(missing, p.Name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return errors.New(capability + ": missing required ports: " + strings.Join(missing, ", "))
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Interface, reflect.Slice, reflect.Chan:
		return rv.IsNil()
	}
	return false
}

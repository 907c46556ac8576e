package http

// Response and request bodies. JSON names are camelCase as in docs/api.md; nullable fields are
// present and null. The oas tag feeds the OpenAPI generator (openapi.go): required, enum=A|B,
// format=…, pattern=…, maxLength=n, and nullable for a non-pointer field that some answers null;
// a description tag documents a field.

type healthResponse struct {
	Status string `json:"status" oas:"required,enum=ok|unavailable"`
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

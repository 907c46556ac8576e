package postgres

// rowModel is a Bun model that converts back to its domain type through the same checks a
// constructor makes (STYLE.md: a row read back is checked like a new object).
type rowModel[D any] interface{ domain() (D, error) }

// domainRows converts rows in order and fails on the first row that does not pass.
func domainRows[D any, M rowModel[D]](rows []M) ([]D, error) {
	out := make([]D, 0, len(rows))
	for _, m := range rows {
		d, err := m.domain()
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

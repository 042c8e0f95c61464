package pgread

import (
	"errors"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// answer is a replica's complete answer to one query, read to its end before the caller sees a
// row. A standby that dies mid-answer sends the rows it had buffered and then an error; had the
// caller been given those rows first, the failure would reach the user after data, where it can
// no longer be run again on the primary. Read-model queries answer a page at a time, so holding
// one in memory costs little.
type answer struct {
	fields []pgconn.FieldDescription
	rows   [][][]byte
	tag    pgconn.CommandTag
	next   int // rows[next-1] is the current row
	types  *pgtype.Map
	err    error
}

// typeMaps lends each answer a type map of its own: a map memoizes scan plans as it is used,
// so it must not be shared by two goroutines, and reusing one keeps those plans. The pools
// register no types of their own, so a default map decodes what they would.
var typeMaps = sync.Pool{New: func() any { return pgtype.NewMap() }}

var errClosed = errors.New("pgread: rows used after Close")

// readAnswer reads rows to the end and closes them. The error is the one rows ended with.
func readAnswer(rows pgx.Rows) (*answer, error) {
	defer rows.Close()
	a := &answer{fields: append([]pgconn.FieldDescription(nil), rows.FieldDescriptions()...)}
	for rows.Next() {
		raw := rows.RawValues()
		size := 0
		for _, v := range raw {
			size += len(v)
		}
		// One allocation per row; a NULL stays nil, as pgx reports it.
		buf := make([]byte, 0, size)
		row := make([][]byte, len(raw))
		for i, v := range raw {
			if v != nil {
				start := len(buf)
				buf = append(buf, v...)
				row[i] = buf[start:len(buf):len(buf)]
			}
		}
		a.rows = append(a.rows, row)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	a.tag = rows.CommandTag()
	a.types = typeMaps.Get().(*pgtype.Map)
	return a, nil
}

func (a *answer) Close() {
	if a.types != nil {
		typeMaps.Put(a.types)
		a.types = nil
	}
	a.next = len(a.rows) + 1
}

func (a *answer) Err() error                                   { return a.err }
func (a *answer) CommandTag() pgconn.CommandTag                { return a.tag }
func (a *answer) FieldDescriptions() []pgconn.FieldDescription { return a.fields }
func (a *answer) Conn() *pgx.Conn                              { return nil }
func (a *answer) TypeMap() *pgtype.Map                         { return a.types }

func (a *answer) Next() bool {
	if a.next > len(a.rows) {
		return false
	}
	a.next++
	if a.next > len(a.rows) {
		a.Close()
		return false
	}
	return true
}

func (a *answer) current() ([][]byte, error) {
	if a.types == nil || a.next < 1 || a.next > len(a.rows) {
		return nil, errClosed
	}
	return a.rows[a.next-1], nil
}

func (a *answer) RawValues() [][]byte {
	row, _ := a.current()
	return row
}

func (a *answer) Scan(dest ...any) error {
	row, err := a.current()
	if err != nil {
		return err
	}
	if len(dest) == 1 {
		if s, ok := dest[0].(pgx.RowScanner); ok {
			return s.ScanRow(a)
		}
	}
	if err := pgx.ScanRow(a.types, a.fields, row, dest...); err != nil {
		a.err = err
		a.Close()
		return err
	}
	return nil
}

func (a *answer) Values() ([]any, error) {
	row, err := a.current()
	if err != nil {
		return nil, err
	}
	values := make([]any, len(row))
	for i, v := range row {
		if v == nil {
			continue
		}
		f := a.fields[i]
		t, ok := a.types.TypeForOID(f.DataTypeOID)
		if !ok {
			// A type the map does not know is handed over as the server sent it.
			if f.Format == pgtype.TextFormatCode {
				values[i] = string(v)
			} else {
				values[i] = append([]byte(nil), v...)
			}
			continue
		}
		if values[i], err = t.Codec.DecodeValue(a.types, f.DataTypeOID, f.Format, v); err != nil {
			a.err = err
			a.Close()
			return nil, err
		}
	}
	return values, nil
}

var _ pgx.Rows = (*answer)(nil)

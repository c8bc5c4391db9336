package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Attachment kinds: how the model gets an attachment.
const (
	// AttachmentText is text (a file's, a PDF's extracted text, a
	// resource's) inlined into the message for the model.
	AttachmentText = "text"
	// AttachmentImage is an image sent as an image part, to models that
	// see images.
	AttachmentImage = "image"
)

// AttachmentKinds lists the values of Attachment.Kind (the frontend's
// contract is generated from it).
var AttachmentKinds = []string{AttachmentText, AttachmentImage}

// An Attachment is a file, image or resource attached to a user's message; its bytes are a blob.
type Attachment struct {
	ID        string `json:"id"` // sha256 hex of the stored bytes
	Name      string `json:"name"`
	MIME      string `json:"mime"`
	Size      int64  `json:"size"`                          // bytes stored
	Kind      string `json:"kind" ts_type:"AttachmentKind"` // AttachmentText | AttachmentImage
	ServerID  string `json:"serverId,omitempty"`            // set for an MCP resource, with URI
	URI       string `json:"uri,omitempty"`
	Truncated bool   `json:"truncated,omitempty"` // text cut to the limit; the model is told
}

// BlobID is the ID a blob of data gets: the hex SHA-256 of the bytes.
func BlobID(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// PutBlob stores data (content-addressed: storing the same bytes again
// keeps one copy) and returns its ID. A blob no message refers to is
// removed by PruneBlobs once it is older than its grace period; storing it
// again restarts that period.
func (s *Store) PutBlob(ctx context.Context, data []byte, mime string) (string, error) {
	id := BlobID(data)
	if data == nil {
		data = []byte{} // the column is NOT NULL
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO blobs(id, mime, size, data, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET created_at = excluded.created_at`, id, mime, len(data), data, now())
	if err != nil {
		return "", fmt.Errorf("storing an attachment: %w", err)
	}
	return id, nil
}

// Blob returns a blob's bytes and MIME type; ErrNotFound if there is none.
func (s *Store) Blob(ctx context.Context, id string) ([]byte, string, error) {
	var data []byte
	var mime string
	err := s.db.QueryRowContext(ctx, `SELECT data, mime FROM blobs WHERE id = ?`, id).Scan(&data, &mime)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", fmt.Errorf("attachment %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, "", fmt.Errorf("reading attachment %s: %w", id, err)
	}
	return data, mime, nil
}

// BlobInfo returns a blob's MIME type and size without reading its bytes;
// ErrNotFound if there is none.
func (s *Store) BlobInfo(ctx context.Context, id string) (mime string, size int64, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT mime, size FROM blobs WHERE id = ?`, id).Scan(&mime, &size)
	if errors.Is(err, sql.ErrNoRows) {
		return "", 0, fmt.Errorf("attachment %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return "", 0, fmt.Errorf("reading attachment %s: %w", id, err)
	}
	return mime, size, nil
}

// PruneBlobs deletes the blobs that no message refers to and that were
// stored more than olderThan ago (attached, then never sent, or their
// messages deleted), and returns how many went. The grace period keeps
// the attachments of a message being written.
func (s *Store) PruneBlobs(ctx context.Context, olderThan time.Duration) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM blobs WHERE created_at < ? AND id NOT IN (
		SELECT json_extract(a.value, '$.id') FROM messages m, json_each(m.attachments) a
		WHERE m.attachments IS NOT NULL AND json_valid(m.attachments))`, time.Now().Add(-olderThan).UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("pruning attachments: %w", err)
	}
	return res.RowsAffected()
}

// attachmentsJSON is the attachments column's value: NULL for none.
func attachmentsJSON(list []Attachment) sql.NullString {
	if len(list) == 0 {
		return sql.NullString{}
	}
	b, _ := json.Marshal(list)
	return sql.NullString{String: string(b), Valid: true}
}

// parseAttachments reads the attachments column; bad JSON (never written
// by this package) reads as none.
func parseAttachments(col sql.NullString) []Attachment {
	if !col.Valid || col.String == "" {
		return nil
	}
	var out []Attachment
	if json.Unmarshal([]byte(col.String), &out) != nil {
		return nil
	}
	return out
}

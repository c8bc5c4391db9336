package app

import "github.com/switchboard-app/switchboard/internal/store"

// AddAttachment checks and stores a file the user picked, pasted or
// dropped (its bytes as base64), for the message being written; Send
// takes what it returns. The error says what is accepted, or the limit.
func (a *App) AddAttachment(name, mime, dataBase64 string) (store.Attachment, error) {
	svc, err := a.services()
	if err != nil {
		return store.Attachment{}, err
	}
	return svc.AttachBase64(a.life, name, mime, dataBase64)
}

// AttachmentData returns a stored attachment as a data: URL, to show an
// image's thumbnail or a text's start.
func (a *App) AttachmentData(id string) (string, error) {
	svc, err := a.services()
	if err != nil {
		return "", err
	}
	return svc.AttachmentDataURL(a.life, id)
}

package acp

import (
	"fmt"

	json "github.com/go-json-experiment/json/v1"
)

// Content block types (the ContentBlock "type" discriminator).
const (
	ContentText         = "text"
	ContentImage        = "image"
	ContentAudio        = "audio"
	ContentResourceLink = "resource_link"
	ContentResource     = "resource"
)

// Role is an annotation audience ("user" or "assistant"); unknown values are kept verbatim.
type Role string

// Roles defined by ACP v1.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// ContentBlock is one piece of content in a prompt, a message chunk or a tool call.
//
// It is a flat union of the schema's TextContent, ImageContent, AudioContent,
// ResourceLink and EmbeddedResource shapes, discriminated by Type. MarshalJSON emits
// only the fields of Type's shape (a text block never carries "uri"), always including
// that shape's required fields. A block whose Type is not one of the Content*
// constants keeps its JSON in Raw when decoded and is marshalled from Raw verbatim.
type ContentBlock struct {
	// Type is the discriminator: ContentText, ContentImage, ContentAudio,
	// ContentResourceLink, ContentResource, or an unknown type kept verbatim.
	Type string `json:"type"`
	// Text is the text of a "text" block.
	Text string `json:"text"`
	// Data is the base64 payload of an "image" or "audio" block.
	Data string `json:"data"`
	// MimeType is required for "image" and "audio", optional for "resource_link".
	MimeType string `json:"mimeType"`
	// URI is required for "resource_link", optional for "image".
	URI string `json:"uri"`
	// Name is required for "resource_link".
	Name string `json:"name"`
	// Title is optional for "resource_link".
	Title string `json:"title"`
	// Description is optional for "resource_link".
	Description string `json:"description"`
	// Size is the optional byte size of a "resource_link".
	Size *int64 `json:"size"`
	// Resource is the embedded resource of a "resource" block.
	Resource *EmbeddedResourceResource `json:"resource"`
	// Annotations are optional on every block type.
	Annotations *Annotations `json:"annotations"`
	// Meta is the block's _meta object.
	Meta json.RawMessage `json:"_meta"`
	// Raw holds the whole block as received when Type is unknown; it is ignored for known types.
	Raw json.RawMessage `json:"-"`
}

// TextBlock returns a "text" content block.
func TextBlock(s string) ContentBlock { return ContentBlock{Type: ContentText, Text: s} }

// ImageBlock returns an "image" content block with base64-encoded data.
func ImageBlock(mimeType, base64Data string) ContentBlock {
	return ContentBlock{Type: ContentImage, MimeType: mimeType, Data: base64Data}
}

// AudioBlock returns an "audio" content block with base64-encoded data.
func AudioBlock(mimeType, base64Data string) ContentBlock {
	return ContentBlock{Type: ContentAudio, MimeType: mimeType, Data: base64Data}
}

// ResourceLinkBlock returns a "resource_link" content block.
func ResourceLinkBlock(uri, name string) ContentBlock {
	return ContentBlock{Type: ContentResourceLink, URI: uri, Name: name}
}

// ResourceBlock returns a "resource" content block embedding a text resource.
// An empty mimeType is omitted.
func ResourceBlock(uri, mimeType, text string) ContentBlock {
	return ContentBlock{Type: ContentResource, Resource: &EmbeddedResourceResource{URI: uri, MimeType: mimeType, Text: text}}
}

// BlobResourceBlock returns a "resource" content block embedding a binary
// resource, its contents base64-encoded. An empty mimeType is omitted. An
// empty base64Data has no blob to send: the block then embeds an empty text
// resource.
func BlobResourceBlock(uri, mimeType, base64Data string) ContentBlock {
	return ContentBlock{Type: ContentResource, Resource: &EmbeddedResourceResource{URI: uri, MimeType: mimeType, Blob: base64Data}}
}

// Wire shapes of the content block variants, in schema field order.
type (
	textContentWire struct {
		Type        string          `json:"type"`
		Text        string          `json:"text"`
		Annotations *Annotations    `json:"annotations,omitempty"`
		Meta        json.RawMessage `json:"_meta,omitempty"`
	}
	imageContentWire struct {
		Type        string          `json:"type"`
		Data        string          `json:"data"`
		MimeType    string          `json:"mimeType"`
		URI         string          `json:"uri,omitempty"`
		Annotations *Annotations    `json:"annotations,omitempty"`
		Meta        json.RawMessage `json:"_meta,omitempty"`
	}
	audioContentWire struct {
		Type        string          `json:"type"`
		Data        string          `json:"data"`
		MimeType    string          `json:"mimeType"`
		Annotations *Annotations    `json:"annotations,omitempty"`
		Meta        json.RawMessage `json:"_meta,omitempty"`
	}
	resourceLinkWire struct {
		Type        string          `json:"type"`
		URI         string          `json:"uri"`
		Name        string          `json:"name"`
		Title       string          `json:"title,omitempty"`
		Description string          `json:"description,omitempty"`
		MimeType    string          `json:"mimeType,omitempty"`
		Size        *int64          `json:"size,omitempty"`
		Annotations *Annotations    `json:"annotations,omitempty"`
		Meta        json.RawMessage `json:"_meta,omitempty"`
	}
	embeddedResourceWire struct {
		Type        string                    `json:"type"`
		Resource    *EmbeddedResourceResource `json:"resource"`
		Annotations *Annotations              `json:"annotations,omitempty"`
		Meta        json.RawMessage           `json:"_meta,omitempty"`
	}
	// contentBlockWire is the union used for decoding.
	contentBlockWire struct {
		Type        *string                   `json:"type"`
		Text        string                    `json:"text"`
		Data        string                    `json:"data"`
		MimeType    *string                   `json:"mimeType"`
		URI         *string                   `json:"uri"`
		Name        string                    `json:"name"`
		Title       *string                   `json:"title"`
		Description *string                   `json:"description"`
		Size        *int64                    `json:"size"`
		Resource    *EmbeddedResourceResource `json:"resource"`
		Annotations *Annotations              `json:"annotations"`
		Meta        json.RawMessage           `json:"_meta"`
	}
)

// MarshalJSON encodes the block with exactly the fields of its Type.
func (b ContentBlock) MarshalJSON() ([]byte, error) {
	switch b.Type {
	case ContentText:
		return json.Marshal(textContentWire{b.Type, b.Text, b.Annotations, b.Meta})
	case ContentImage:
		return json.Marshal(imageContentWire{b.Type, b.Data, b.MimeType, b.URI, b.Annotations, b.Meta})
	case ContentAudio:
		return json.Marshal(audioContentWire{b.Type, b.Data, b.MimeType, b.Annotations, b.Meta})
	case ContentResourceLink:
		return json.Marshal(resourceLinkWire{b.Type, b.URI, b.Name, b.Title, b.Description, b.MimeType, b.Size, b.Annotations, b.Meta})
	case ContentResource:
		res := b.Resource
		if res == nil {
			res = &EmbeddedResourceResource{}
		}
		return json.Marshal(embeddedResourceWire{b.Type, res, b.Annotations, b.Meta})
	}
	if len(b.Raw) == 0 {
		return nil, fmt.Errorf("content block: unknown type %q without raw JSON", b.Type)
	}
	return b.Raw, nil
}

// UnmarshalJSON decodes any content block. Unknown fields are ignored; a block of an
// unknown type keeps its JSON in Raw.
func (b *ContentBlock) UnmarshalJSON(data []byte) error {
	var w contentBlockWire
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("content block: %w", err)
	}
	if w.Type == nil {
		return fmt.Errorf("content block: missing type")
	}
	*b = w.block()
	if !b.known() {
		b.Raw = append(json.RawMessage(nil), data...)
	}
	return nil
}

// block is the content block w decoded, without Raw. w.Type is set.
func (w *contentBlockWire) block() ContentBlock {
	return ContentBlock{
		Type:        *w.Type,
		Text:        w.Text,
		Data:        w.Data,
		MimeType:    val(w.MimeType),
		URI:         val(w.URI),
		Name:        w.Name,
		Title:       val(w.Title),
		Description: val(w.Description),
		Size:        w.Size,
		Resource:    w.Resource,
		Annotations: w.Annotations,
		Meta:        w.Meta,
	}
}

// known reports whether the block's Type is one of the Content* constants
// (the types blockRoles gives the members of).
func (b *ContentBlock) known() bool {
	_, ok := blockRoles[b.Type]
	return ok
}

// EmbeddedResourceResource is the resource inside a "resource" content block: either
// text contents (Text) or binary contents (Blob, base64). MarshalJSON emits "blob" when
// Blob is set and Text is empty, and "text" otherwise, so one of them is always present.
type EmbeddedResourceResource struct {
	URI      string          `json:"uri"`
	MimeType string          `json:"mimeType"`
	Text     string          `json:"text"`
	Blob     string          `json:"blob"`
	Meta     json.RawMessage `json:"_meta"`
}

type (
	textResourceWire struct {
		URI      string          `json:"uri"`
		MimeType string          `json:"mimeType,omitempty"`
		Text     string          `json:"text"`
		Meta     json.RawMessage `json:"_meta,omitempty"`
	}
	blobResourceWire struct {
		URI      string          `json:"uri"`
		MimeType string          `json:"mimeType,omitempty"`
		Blob     string          `json:"blob"`
		Meta     json.RawMessage `json:"_meta,omitempty"`
	}
)

// MarshalJSON encodes the resource as TextResourceContents or BlobResourceContents.
func (r EmbeddedResourceResource) MarshalJSON() ([]byte, error) {
	if r.Blob != "" && r.Text == "" {
		return json.Marshal(blobResourceWire{r.URI, r.MimeType, r.Blob, r.Meta})
	}
	return json.Marshal(textResourceWire{r.URI, r.MimeType, r.Text, r.Meta})
}

// UnmarshalJSON decodes text or blob resource contents; unknown fields are ignored.
func (r *EmbeddedResourceResource) UnmarshalJSON(data []byte) error {
	type resourceWire EmbeddedResourceResource // the name its errors give
	var w resourceWire
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("embedded resource: %w", err)
	}
	*r = EmbeddedResourceResource(w)
	return nil
}

// Annotations are optional hints on a content block.
type Annotations struct {
	Audience     []Role          `json:"audience,omitempty"`
	LastModified string          `json:"lastModified,omitempty"`
	Priority     *float64        `json:"priority,omitempty"`
	Meta         json.RawMessage `json:"_meta,omitempty"`
}

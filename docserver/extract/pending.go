package extract

import "io"

// Parsers still being written; until they land these formats are skipped.

func parseXLSX(p *parser, src []byte) (*Document, error)          { return nil, ErrUnsupported }
func parsePDF(p *parser, src []byte) (*Document, error)           { return nil, ErrUnsupported }
func parseDOCX(p *parser, src []byte) (*Document, error)          { return nil, ErrUnsupported }
func parsePPTX(p *parser, src []byte) (*Document, error)          { return nil, ErrUnsupported }
func peekXLSX(p *parser, r io.ReaderAt, size int64) (Meta, error) { return Meta{}, ErrUnsupported }
func peekPDF(p *parser, r io.ReaderAt, size int64) (Meta, error)  { return Meta{}, ErrUnsupported }
func peekDOCX(p *parser, r io.ReaderAt, size int64) (Meta, error) { return Meta{}, ErrUnsupported }
func peekPPTX(p *parser, r io.ReaderAt, size int64) (Meta, error) { return Meta{}, ErrUnsupported }

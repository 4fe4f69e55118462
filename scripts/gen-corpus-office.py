#!/usr/bin/env python3
"""Write the DOCX and PPTX files of testdata/corpus with python-docx and
python-pptx, writers this project did not write (the Go generator in
cmd/corpusgen writes the other formats). Run through
scripts/gen-corpus.sh, which installs the pinned packages in a venv.

The packages stamp the current time into docProps/core.xml; the script
fixes it so the files are reproducible.
"""
import datetime
import os
import sys

import docx
from docx.enum.text import WD_BREAK
from pptx import Presentation
from pptx.chart.data import CategoryChartData
from pptx.enum.chart import XL_CHART_TYPE
from pptx.util import Inches

FIXED = datetime.datetime(2026, 1, 15, 8, 30, 0)


def write_docx(path):
    d = docx.Document()
    cp = d.core_properties
    cp.title = "Onboarding Guide"
    cp.subject = "First steps for new team members."
    cp.comments = "First steps for new team members: accounts, contacts and links."
    cp.keywords = "onboarding, guide"
    cp.created = FIXED
    cp.modified = FIXED
    cp.last_printed = FIXED
    cp.revision = 1

    d.add_heading("Onboarding Guide", level=1)
    d.add_paragraph("Welcome aboard. This guide walks you through your first week.")
    d.add_heading("Accounts", level=2)
    d.add_paragraph("Ask IT for these accounts:")
    for item in ["Email", "Source code hosting", "Chat"]:
        d.add_paragraph(item, style="List Bullet")
    d.add_paragraph("Then, in order:")
    for item in ["Set up two-factor login", "Join the team channel", "Read the handbook"]:
        d.add_paragraph(item, style="List Number")
    p = d.add_paragraph("The first page ends here.")
    p.add_run().add_break(WD_BREAK.PAGE)
    d.add_heading("Contacts", level=2)
    t = d.add_table(rows=1, cols=3)
    hdr = t.rows[0].cells
    hdr[0].text, hdr[1].text, hdr[2].text = "Topic", "Person", "Channel"
    for row in [("IT", "Dana", "#it-help"), ("Payroll", "Eli", "#payroll"), ("Office", "Fay", "#office")]:
        cells = t.add_row().cells
        for i, v in enumerate(row):
            cells[i].text = v
    d.add_paragraph("Reach out any time.")
    d.add_section()
    d.add_heading("Appendix", level=2)
    d.add_paragraph("Glossary and links live on the wiki.")
    d.save(path)


def write_pptx(path):
    prs = Presentation()
    cp = prs.core_properties
    cp.title = "Product Roadmap"
    cp.subject = "What ships in 2026, quarter by quarter."
    cp.comments = ""
    cp.keywords = "roadmap, product"
    cp.created = FIXED
    cp.modified = FIXED
    cp.last_printed = FIXED
    cp.revision = 1

    s = prs.slides.add_slide(prs.slide_layouts[0])
    s.shapes.title.text = "Product Roadmap 2026"
    s.placeholders[1].text = "Planning review, January"

    s = prs.slides.add_slide(prs.slide_layouts[1])
    s.shapes.title.text = "Goals"
    body = s.placeholders[1].text_frame
    body.text = "Ship the mobile app"
    for line in ["Double API throughput", "Open two new regions"]:
        body.add_paragraph().text = line
    s.notes_slide.notes_text_frame.text = "Stress the mobile launch date."

    s = prs.slides.add_slide(prs.slide_layouts[5])
    s.shapes.title.text = "Timeline"
    rows = [("Quarter", "Milestone"), ("Q1", "Beta"), ("Q2", "Launch"), ("Q3", "Regions")]
    tbl = s.shapes.add_table(len(rows), 2, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for r, row in enumerate(rows):
        for c, v in enumerate(row):
            tbl.cell(r, c).text = v

    s = prs.slides.add_slide(prs.slide_layouts[5])
    s.shapes.title.text = "Growth"
    data = CategoryChartData()
    data.categories = ["Q1", "Q2", "Q3", "Q4"]
    data.add_series("Users (k)", (120, 180, 260, 340))
    gf = s.shapes.add_chart(XL_CHART_TYPE.LINE, Inches(1), Inches(2), Inches(6), Inches(4), data)
    gf.chart.has_title = True
    gf.chart.chart_title.text_frame.text = "Monthly active users"
    prs.save(path)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "testdata/corpus"
    os.makedirs(os.path.join(out, "guides"), exist_ok=True)
    write_docx(os.path.join(out, "guides", "onboarding.docx"))
    write_pptx(os.path.join(out, "guides", "roadmap.pptx"))
    ts = FIXED.replace(tzinfo=datetime.timezone.utc).timestamp()
    for name in ("onboarding.docx", "roadmap.pptx"):
        os.utime(os.path.join(out, "guides", name), (ts, ts))


if __name__ == "__main__":
    main()

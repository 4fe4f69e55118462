// Measures how much of a Markdown source survives in another Markdown text
// (our format=markdown rendering of it), both parsed by markdown-it, an
// independent CommonMark renderer (with GFM tables, strikethrough and
// linkify). Reads JSON [{name, source, ours}] on stdin and writes, per
// entry, the words and structure items of the source and how many of them
// the other text keeps:
//
//   words:     the visible words (text, code spans, code blocks, words in
//              raw HTML with its tags and comments removed), lower-cased
//   structure: one item per emphasis (em, strong, s), code span, link,
//              blockquote, nested list item, code block, table and
//              heading, keyed by its kind and text, so a heading kept as a
//              paragraph or an item flattened out of its list is lost.
//
// Retention is the multiset intersection divided by the source's count;
// "added" counts structure items of the other text the source does not have.
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: true, linkify: true });

const norm = (s) => s.toLowerCase().replace(/\s+/g, ' ').trim();
const words = (s) => s.toLowerCase().match(/[\p{L}\p{N}_]+/gu) || [];
const stripHTML = (s) => s.replace(/<!--[\s\S]*?-->/g, ' ').replace(/<[^>]*>/g, ' ')
  .replace(/&nbsp;/g, ' ').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

function inlineText(children) {
  let s = '';
  for (const t of children || []) {
    if (t.type === 'text' || t.type === 'code_inline') s += t.content;
    else if (t.type === 'softbreak' || t.type === 'hardbreak') s += ' ';
    else if (t.type === 'html_inline') s += ' ';
    else if (t.type === 'image') s += ''; // alt text is not shown
  }
  return s;
}

function analyse(src) {
  const tokens = md.parse(src, {});
  const w = [];
  const items = [];
  let listDepth = 0;
  const open = []; // stack of {kind, start}
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    switch (t.type) {
      case 'bullet_list_open': case 'ordered_list_open': listDepth++; break;
      case 'bullet_list_close': case 'ordered_list_close': listDepth--; break;
      case 'list_item_open': {
        // The item's text: the first inline token inside it.
        let j = i + 1;
        while (j < tokens.length && tokens[j].type !== 'inline' && tokens[j].type !== 'list_item_close') j++;
        if (listDepth >= 2) items.push('nested:' + norm(j < tokens.length && tokens[j].type === 'inline' ? inlineText(tokens[j].children) : ''));
        break;
      }
      case 'blockquote_open': {
        let j = i + 1;
        while (j < tokens.length && tokens[j].type !== 'inline') j++;
        items.push('blockquote:' + norm(j < tokens.length ? inlineText(tokens[j].children) : '').slice(0, 60));
        break;
      }
      case 'heading_open':
        items.push('heading:' + t.tag + ':' + norm(inlineText(tokens[i + 1].children)));
        break;
      case 'table_open': {
        let j = i + 1;
        const head = [];
        while (j < tokens.length && tokens[j].type !== 'thead_close') {
          if (tokens[j].type === 'inline') head.push(norm(inlineText(tokens[j].children)));
          j++;
        }
        items.push('table:' + head.join('|'));
        break;
      }
      case 'fence': case 'code_block':
        items.push('codeblock:' + norm(t.content));
        w.push(...words(t.content));
        break;
      case 'html_block':
        w.push(...words(stripHTML(t.content)));
        break;
      case 'inline':
        for (let k = 0; k < t.children.length; k++) {
          const c = t.children[k];
          switch (c.type) {
            case 'text': w.push(...words(c.content)); break;
            case 'code_inline':
              w.push(...words(c.content));
              items.push('code:' + norm(c.content));
              break;
            case 'html_inline': w.push(...words(stripHTML(c.content))); break;
            case 'em_open': case 'strong_open': case 's_open': {
              const close = c.type.replace('_open', '_close');
              let depth = 0, m = k;
              const inner = [];
              for (; m < t.children.length; m++) {
                if (t.children[m].type === c.type) depth++;
                if (t.children[m].type === close && --depth === 0) break;
                inner.push(t.children[m]);
              }
              items.push(c.tag + ':' + norm(inlineText(inner)));
              break;
            }
            case 'link_open': {
              const href = c.attrGet('href') || '';
              items.push('link:' + href);
              break;
            }
          }
        }
        break;
    }
  }
  return { words: w, items };
}

function retained(src, ours) {
  const have = new Map();
  for (const x of ours) have.set(x, (have.get(x) || 0) + 1);
  let kept = 0;
  const lost = [];
  for (const x of src) {
    const n = have.get(x) || 0;
    if (n > 0) { kept++; have.set(x, n - 1); } else lost.push(x);
  }
  return { total: src.length, kept, lost };
}

function byKind(list) {
  const out = {};
  for (const x of list) {
    const k = x.slice(0, x.indexOf(':'));
    out[k] = (out[k] || 0) + 1;
  }
  return out;
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const out = [];
  for (const { name, source, ours, literal } of JSON.parse(input)) {
    if (literal) {
      // What a reader of the rendered Markdown sees: the HTML's text, one
      // line per <br> or block, entities decoded.
      const html = md.render(ours);
      const text = html.replace(/<br\s*\/?>\n?/g, '\n').replace(/<\/(p|h[1-6]|li|pre|blockquote)>\n?/g, '\n')
        .replace(/<[^>]*>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'").replace(/&nbsp;/g, '\u00a0').replace(/&amp;/g, '&');
      out.push({ name, text });
      continue;
    }
    const a = analyse(source), b = analyse(ours);
    const w = retained(a.words, b.words);
    const s = retained(a.items, b.items);
    const extra = retained(b.items, a.items); // structure ours has that the source has not
    out.push({
      name,
      words: { total: w.total, kept: w.kept, lost: w.lost.slice(0, 30) },
      structure: { total: s.total, kept: s.kept, lost: s.lost.slice(0, 40), by_kind: byKind(a.items), lost_by_kind: byKind(s.lost),
        added: extra.lost.length, added_by_kind: byKind(extra.lost) },
    });
  }
  process.stdout.write(JSON.stringify(out, null, 1));
});

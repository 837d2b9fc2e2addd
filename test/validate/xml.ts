// A minimal XML reader for asserting JUnit output: elements, attributes and text, entities decoded. It throws on
// unbalanced or malformed tags, so a test using it also checks the output is well-formed.
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const decode = (s: string): string =>
  s.replace(
    /&(lt|gt|amp|quot|apos);/g,
    (_, e: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" })[e] as string,
  );

export function parseXml(xml: string): XmlElement {
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const root: XmlElement = { name: '#root', attrs: {}, children: [], text: '' };
  const stack: XmlElement[] = [root];
  const token = /<\/([\w:-]+)\s*>|<([\w:-]+)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  let m: RegExpExecArray | null;
  while (token.lastIndex < body.length && (m = token.exec(body)) !== null) {
    const top = stack[stack.length - 1] as XmlElement;
    if (m[1]) {
      if (top.name !== m[1]) throw new Error(`unbalanced </${m[1]}> inside <${top.name}>`);
      stack.pop();
    } else if (m[2]) {
      const attrs: Record<string, string> = {};
      for (const a of (m[3] ?? '').matchAll(/([\w:-]+)="([^"]*)"/g)) attrs[a[1] as string] = decode(a[2] as string);
      const el: XmlElement = { name: m[2], attrs, children: [], text: '' };
      top.children.push(el);
      if (m[4] !== '/') stack.push(el);
    } else if (m[5]) {
      if (/[<>]/.test(m[5]) || /&(?!(lt|gt|amp|quot|apos);)/.test(m[5])) throw new Error(`unescaped text: ${m[5]}`);
      top.text += decode(m[5]);
    }
  }
  if (token.lastIndex < body.length)
    throw new Error(`malformed XML at ${token.lastIndex}: ${body.slice(token.lastIndex, token.lastIndex + 40)}`);
  if (stack.length !== 1) throw new Error(`unclosed <${stack[stack.length - 1]?.name}>`);
  const [only] = root.children;
  if (!only || root.children.length !== 1) throw new Error('expected one root element');
  return only;
}

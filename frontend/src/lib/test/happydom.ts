// happy-dom's Node.prototype.nodeName getter returns '' for elements and text, and
// DOMPurify reads nodeName through exactly that getter, so in tests it would
// treat every element's name as empty. Import this before anything that
// imports DOMPurify (real browsers need nothing of the sort).
const desc = Object.getOwnPropertyDescriptor(Node.prototype, 'nodeName');
if (desc?.get) {
  const base = desc.get;
  Object.defineProperty(Node.prototype, 'nodeName', {
    configurable: true,
    get(this: Node) {
      switch (this.nodeType) {
        case 1:
          return (this as Element).tagName;
        case 3:
          return '#text';
        case 4:
          return '#cdata-section';
        case 7:
          return (this as ProcessingInstruction).target;
        case 8:
          return '#comment';
        case 9:
          return '#document';
        case 11:
          return '#document-fragment';
      }
      return base.call(this);
    },
  });
}
export {};

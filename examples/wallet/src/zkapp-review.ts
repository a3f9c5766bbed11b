/**
 * The wallet's review of a zkApp command that the device will sign blind (the released Mina app shows a hash): the
 * library's one renderer (`zkappSummaryView`), laid out as sections of label and value, nothing of it dropped. Every
 * account update that changes anything, each setting with its value, the nonce, what the signature covers; the
 * holder's account marked "(you)", updates numbered as the device numbers them, flagged rows marked. Addresses are
 * shown whole, in groups of five characters, so a line breaks between groups, never inside one.
 */
import { zkappSummaryView, type ZkappSummary, type ZkappSummaryRow, type ZkappSummarySection } from 'chain-ledger';

/** What the panel shows: who asks for what, on which network, then the summary's sections. */
export interface ZkappReviewPanel {
  heading: string;
  sections: ZkappSummarySection[];
}

export function zkappReviewPanel(summary: ZkappSummary & { origin: string }): ZkappReviewPanel {
  return {
    heading: `${summary.origin} asks you to sign a zkApp command on ${summary.chain.name} (${summary.chain.id}).`,
    sections: zkappSummaryView(summary),
  };
}

/** An address value in groups of five characters (each unbreakable), the rest of the value after it as text. */
function addressValue(doc: Document, value: string): Node[] {
  const address = value.slice(0, 55);
  const groups = address.match(/.{1,5}/g) ?? [];
  return [
    ...groups.map((group) => Object.assign(doc.createElement('span'), { className: 'group', textContent: group })),
    doc.createTextNode(value.slice(55)),
  ];
}

function rowElement(doc: Document, row: ZkappSummaryRow): HTMLElement {
  const item = doc.createElement('div');
  item.className = 'review-row';
  if (row.flag) item.dataset.flag = row.flag;
  const label = doc.createElement('dt');
  label.textContent = row.flag ? `⚠ ${row.label}` : row.label;
  const value = doc.createElement('dd');
  if (row.address) {
    value.classList.add('address');
    value.append(...addressValue(doc, row.value));
  } else value.textContent = row.value;
  item.append(label, value);
  return item;
}

/** The panel as elements: a heading, then one titled list per section. */
export function renderZkappReview(panel: ZkappReviewPanel, doc: Document = document): HTMLElement {
  const root = doc.createElement('div');
  root.className = 'zkapp-review';
  const heading = doc.createElement('p');
  heading.className = 'review-heading';
  heading.textContent = panel.heading;
  root.append(heading);
  for (const section of panel.sections) {
    const part = doc.createElement('section');
    part.className = 'review-section';
    const title = doc.createElement('h3');
    title.textContent = section.title;
    const list = doc.createElement('dl');
    list.append(...section.rows.map((row) => rowElement(doc, row)));
    part.append(title, list);
    root.append(part);
  }
  return root;
}

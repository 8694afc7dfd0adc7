// A new order as a message in the team's chat, through an incoming webhook: Slack's Block Kit
// and Microsoft Teams' Adaptive Card, each with buyer, product, total and the order's link.
//
// Every piece of marketplace text in a message (buyer, product, total with its currency, order
// id) and the account label beside them goes through its chat's one cleaner. Both
// start alike: one plain, capped line (marketplace-text.ts: no controls, bidi overrides or
// zero-width characters) with nothing a chat offers as a link (`linkless`: look-alike dots and
// colons). Then each chat's markup characters become look-alikes, one character for one, since
// neither format has an escape every client honours. What each format makes of what, as read
// (Slack: docs.slack.dev/messaging/formatting-message-text and
// docs.slack.dev/reference/block-kit/composition-objects/text-object; Teams:
// learn.microsoft.com/microsoftteams/platform/task-modules-and-cards/cards/cards-format and
// learn.microsoft.com/adaptive-cards/authoring-cards/text-features; the card's elements and
// properties against microsoft/AdaptiveCards schemas/1.4.0/adaptive-card.json; the mobile
// clients' Markdown parser in its source/shared/cpp/ObjectModel/MarkDownBlockParser.cpp):
//
// - Slack parses `&`, `<` and `>` as control characters in the message's `text` (mrkdwn by
//   default) and in mrkdwn objects: `<!channel>`, `<!here>`, `<@U…>`, `<#C…>`, `<!subteam^…>`,
//   `<!date^…>` and `<url|label>` all start with `<`; it asks for &amp; &lt; &gt; and decodes
//   only those. mrkdwn also formats `*bold*`, `_italic_`, `~strike~`, `` `code` ``, `>` quotes,
//   turns `:shortcode:` into emoji and, unless verbatim, links URLs and #channel names. It has
//   no backslash escape. `plain_text` objects are never parsed for markup or mentions, and turn
//   `:shortcodes:` into emoji only with `emoji: true`. So: blocks carry only plain_text with
//   emoji off; the fallback `text` is sent with `mrkdwn: false` and &, <, > escaped; and the
//   cleaner turns < > into ‹ ›, @ into ＠ (no @channel, @here) and the colon opening a
//   `:shortcode:` into ꞉.
// - Teams renders Markdown in a TextBlock's `text` and in a fact's `title` and `value`: `**`,
//   `_`, `[label](url)`, `- ` and `1. ` lists. The desktop may parse fuller CommonMark (the
//   JavaScript renderer leaves Markdown to the host's processor: `*`, `` ` ``, `~~`, `#`, `>`,
//   `+ ` lists, `&…;` entities, `\` escapes); the mobile clients' parser honours `\` only
//   before `*` and `_` and passes `<`, `>` and `&` through as HTML.
//   `{{DATE(…)}}` and `{{TIME(…)}}` are rewritten by every renderer. A mention needs `<at>…</at>`
//   and an `msteams.entities` entry (none is ever sent). HTML is not supported. So the cleaner
//   turns < > & [ ] * _ ` ~ { } \ into look-alikes (‹ › ＆ ［ ］ ∗ ＿ ‵ ∼ ｛ ｝ ⧵), and a
//   leading `-`, `+`, `#` or `1.` / `1)` into one that starts no list or heading.
import { capped, linkless, NAME_MAX, plainText } from '../../../preload/marketplace-text';
import { isPlainPurchase, purchaseTypeLabel } from '../../../preload/order-status';
import type { OrderBrief } from '../notification-policy';

export interface ChatOrder {
  brief: OrderBrief;
  link: string | null;
  /** The account's label (local settings, not marketplace text). */
  account: string;
}

/** Look-alikes of markup characters: one character for one, so a capped text stays capped. */
const LOOK_ALIKE: Readonly<Record<string, string>> = {
  '<': '\u2039',
  '>': '\u203a',
  '&': '\uff06',
  '[': '\uff3b',
  ']': '\uff3d',
  '*': '\u2217',
  _: '\uff3f',
  '`': '\u2035',
  '~': '\u223c',
  '{': '\uff5b',
  '}': '\uff5d',
  '\\': '\u29f5',
  '@': '\uff20',
  ':': '\ua789',
  '-': '\u2010',
  '+': '\uff0b',
  '#': '\uff03',
  '.': '\u2024',
  ')': '\uff09',
};
const lookAlike = (character: string): string => LOOK_ALIKE[character] ?? character;

/** One chat's markup: the characters it parses anywhere, and the patterns it parses in place. */
interface ChatMarkup {
  anywhere: RegExp;
  /** Each match's characters become look-alikes (a shortcode's opening colon, a list's marker). */
  inPlace: RegExp;
  /** The order link as this chat is sent it, so that what it shows is the link exact, to copy. */
  link: (link: string) => string;
}

const SLACK: ChatMarkup = { anywhere: /[<>@]/g, inPlace: /:(?=[\w+'-]+:)/g, link: (link) => link };
const TEAMS: ChatMarkup = {
  anywhere: /[<>&[\]*_`~{}\\]/g,
  // A list's or heading's marker where the text starts (each text is one line).
  inPlace: /^\s*(?:[-+#]|\d+[.)](?=\s|$))/,
  // An account's name may hold `_` (and `._x_/` would be emphasis to CommonMark, the underscores
  // lost): escaped with `\`, which both the desktop's CommonMark and the mobile parser honour
  // before `_`, so each shows the link as built.
  link: (link) => link.replaceAll('_', '\\_'),
};

/** Text with a chat's markup turned into look-alikes: what it shows is what it says. */
function inert(text: string, markup: ChatMarkup): string {
  return text
    .replace(markup.anywhere, lookAlike)
    .replace(markup.inPlace, (marker) => marker.replace(/[-+#.):]/g, lookAlike));
}

/** Marketplace text for one chat: a plain, capped line that no chat links and `markup` leaves alone. */
function chatText(text: string, markup: ChatMarkup, max = NAME_MAX): string {
  return capped(inert(linkless(plainText(text)), markup), max);
}

/** The order's facts, each value cleaned for the chat whose markup is given. */
function facts(order: ChatOrder, markup: ChatMarkup): { title: string; value: string }[] {
  const { brief } = order;
  return [
    { title: 'Buyer', value: chatText(brief.buyer, markup) },
    { title: 'Product', value: chatText(brief.product, markup) },
    { title: 'Total', value: brief.total === '' ? 'not stated' : chatText(brief.total, markup) },
    { title: 'Order', value: chatText(brief.orderId, markup) },
  ];
}

/**
 * Where the order is and whose it is. The link shows exact, to be copied: orderLink builds it
 * only from a checked order id and a label of letters, digits, `.`, `_` and `-`. Without one,
 * the order id (the marketplace's) is cleaned like the rest.
 */
function footer(order: ChatOrder, markup: ChatMarkup): string {
  const where = order.link === null ? chatText(order.brief.orderId, markup) : markup.link(order.link);
  return `${where} · account ${chatText(order.account, markup)}`;
}

/**
 * "New order", or the purchase's kind: an unknown event type's words come from the marketplace
 * (purchaseTypeLabel splits the code as sent), so the line is cleaned and capped like a name,
 * well inside Slack's 150 characters for a header block.
 */
function headline(order: ChatOrder, markup: ChatMarkup): string {
  const type = order.brief.purchaseType;
  return isPlainPurchase(type)
    ? 'New order'
    : chatText(`New ${purchaseTypeLabel(type ?? '').toLowerCase()}`, markup);
}

/** Slack's escaping for text it parses (mrkdwn): only these three characters. */
const slackEscaped = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** Slack's plain_text object: never parsed for markup or mentions; emoji shortcodes left as typed. */
const plainTextObject = (text: string) => ({ type: 'plain_text', text, emoji: false });

/**
 * A Slack incoming webhook's message: Block Kit, with fallback text for notifications, sent with
 * `mrkdwn: false` (no formatting) and escaped (no control sequence).
 */
export function slackMessage(order: ChatOrder): Record<string, unknown> {
  const all = facts(order, SLACK);
  const title = headline(order, SLACK);
  // Cleaned again as a whole: a piece ending ":rotating_light" and the ": " after it make a shortcode.
  const fallback = inert(`${title} from ${all[0]?.value}: ${all[1]?.value}, ${all[2]?.value}`, SLACK);
  return {
    text: slackEscaped(fallback),
    mrkdwn: false,
    blocks: [
      { type: 'header', text: plainTextObject(title) },
      { type: 'section', fields: all.map((f) => plainTextObject(`${f.title}\n${f.value}`)) },
      { type: 'context', elements: [plainTextObject(footer(order, SLACK))] },
    ],
  };
}

/** A Teams incoming webhook's message: one Adaptive Card, version 1.4 (nothing in it needs more than 1.0). */
export function teamsMessage(order: ChatOrder): Record<string, unknown> {
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            { type: 'TextBlock', text: headline(order, TEAMS), weight: 'Bolder', size: 'Medium', wrap: true },
            { type: 'FactSet', facts: facts(order, TEAMS) },
            { type: 'TextBlock', text: footer(order, TEAMS), isSubtle: true, wrap: true },
          ],
        },
      },
    ],
  };
}

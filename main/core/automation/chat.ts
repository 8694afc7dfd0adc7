// A new order as a message in the team's chat, through an incoming webhook: Slack's Block Kit
// and Microsoft Teams' Adaptive Card, each with buyer, product, total and the order's link. The
// buyer's and product's names are the marketplace's words: made one plain, capped line
// (marketplace-text.ts), with nothing a chat could turn into a link and no angle brackets, then
// kept from each chat's markup: Slack gets them as plain_text objects (never parsed for
// mentions, links or formatting) and its fallback text with &, < and > escaped (so no
// <!channel> or <@U123>); Teams gets Markdown's characters escaped (no [forged](links) or
// **emphasis**).
import { capped, linkless, NAME_MAX, plainText } from '../../../preload/marketplace-text';
import { isPlainPurchase, purchaseTypeLabel } from '../../../preload/order-status';
import type { OrderBrief } from '../notification-policy';

export interface ChatOrder {
  brief: OrderBrief;
  link: string | null;
  /** The account's label (local settings, not marketplace text). */
  account: string;
}

/**
 * Marketplace text for a chat: one plain, capped line no chat turns into a link, its angle
 * brackets as look-alikes (‹ ›), so no markup, mention (<!channel>, <at>) or link (<url|text>)
 * can form in any of the chats' text modes.
 */
function chatText(text: string, max = NAME_MAX): string {
  return capped(linkless(plainText(text)), max)
    .replaceAll('<', '\u2039')
    .replaceAll('>', '\u203a');
}

function facts(order: ChatOrder): { title: string; value: string }[] {
  const { brief } = order;
  return [
    { title: 'Buyer', value: chatText(brief.buyer) },
    { title: 'Product', value: chatText(brief.product) },
    { title: 'Total', value: brief.total === '' ? 'not stated' : chatText(brief.total) },
    { title: 'Order', value: brief.orderId },
  ];
}

function headline(order: ChatOrder): string {
  const type = order.brief.purchaseType;
  return isPlainPurchase(type) ? 'New order' : `New ${purchaseTypeLabel(type ?? '').toLowerCase()}`;
}

/** Slack's escaping for text it parses (mrkdwn): only these three characters. */
const slackEscaped = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** A Slack incoming webhook's message: Block Kit, with plain fallback text for notifications. */
export function slackMessage(order: ChatOrder): Record<string, unknown> {
  const all = facts(order);
  const fallback = `${headline(order)} from ${all[0]?.value}: ${all[1]?.value}, ${all[2]?.value}`;
  return {
    text: slackEscaped(fallback),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: headline(order), emoji: false } },
      {
        type: 'section',
        fields: all.map((f) => ({ type: 'plain_text', text: `${f.title}\n${f.value}`, emoji: false })),
      },
      {
        type: 'context',
        elements: [
          {
            type: 'plain_text',
            text: `${order.link ?? order.brief.orderId} · account ${chatText(order.account)}`,
            emoji: false,
          },
        ],
      },
    ],
  };
}

/** Markdown's characters escaped, so Teams shows the text as it is. */
const teamsEscaped = (text: string): string => text.replace(/[\\`*_{}[\]()<>#+\-!|~]/g, '\\$&');

/** A Teams incoming webhook's message: one Adaptive Card. */
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
            { type: 'TextBlock', text: headline(order), weight: 'Bolder', size: 'Medium', wrap: true },
            {
              type: 'FactSet',
              facts: facts(order).map((f) => ({ title: f.title, value: teamsEscaped(f.value) })),
            },
            {
              type: 'TextBlock',
              text: teamsEscaped(`${order.link ?? order.brief.orderId} · account ${chatText(order.account)}`),
              isSubtle: true,
              wrap: true,
            },
          ],
        },
      },
    ],
  };
}

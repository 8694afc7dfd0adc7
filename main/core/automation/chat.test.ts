// The chat messages' pieces the loopback test (test/automations.test.ts, "Slack and Teams") cannot
// reach through the simulator, whose order ids are always UUIDs: an order id that is not one
// (then no link, and the id is the marketplace's text, cleaned), the link sent exact, and
// ordinary names left as they are.
import { describe, expect, it } from 'vitest';
import { NAME_MAX } from '../../../preload/marketplace-text';
import { slackPlainMarkup, slackTextMarkup, teamsMarkup } from '../../../test/support/hostile-chat';
import { type ChatOrder, slackMessage, teamsMessage } from './chat';

const order = (brief: Partial<ChatOrder['brief']>, link: string | null = null): ChatOrder => ({
  brief: { orderId: 'o-1', buyer: 'Fjord AB', product: 'Backup × 1', total: '€10.00', ...brief },
  link,
  account: 'EU',
});

interface Sent {
  slackFacts: string[];
  slackFooter: string;
  slackText: string;
  teamsFacts: string[];
  teamsFooter: string;
}

function sent(o: ChatOrder): Sent {
  const slack = slackMessage(o) as {
    text: string;
    blocks: { fields?: { text: string }[]; elements?: { text: string }[] }[];
  };
  const card = (
    teamsMessage(o) as {
      attachments: { content: { body: { facts?: { value: string }[]; text?: string }[] } }[];
    }
  ).attachments[0]?.content;
  return {
    slackFacts: slack.blocks[1]?.fields?.map((f) => f.text.split('\n')[1] ?? '') ?? [],
    slackFooter: slack.blocks[2]?.elements?.[0]?.text ?? '',
    slackText: slack.text,
    teamsFacts: card?.body[1]?.facts?.map((f) => f.value) ?? [],
    teamsFooter: card?.body[2]?.text ?? '',
  };
}

describe('a chat message', () => {
  it('cleans an order id that is not a UUID (no link then) in the facts and the footer', () => {
    const forged = '<!channel> [pay](https://evil.example) **now**';
    const { slackFacts, slackFooter, teamsFacts, teamsFooter } = sent(order({ orderId: forged }));
    for (const text of [slackFacts[3] ?? '', slackFooter]) expect(slackPlainMarkup(text)).toEqual([]);
    for (const text of [teamsFacts[3] ?? '', teamsFooter]) expect(teamsMarkup(text)).toEqual([]);
  });

  it('sends the order link so that it shows exact, to be copied', () => {
    // "a._b_" as an account's name: to CommonMark, "._b_/" is emphasis and its underscores vanish.
    const link = 'seller-tray://order/a._b_/0b5c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3';
    const { slackFooter, teamsFooter } = sent(order({}, link));
    expect(slackFooter).toBe(`${link} · account EU`);
    // Teams: each `_` escaped, which its Markdown parsers show as `_`; nothing else is markup.
    expect(teamsFooter).toBe(
      'seller-tray://order/a.\\_b\\_/0b5c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3 · account EU',
    );
    expect(teamsFooter.replace(/\\([*_])/g, '$1')).toBe(`${link} · account EU`);
  });

  it('leaves ordinary names as they are, but for what each chat would read as markup', () => {
    const { slackFacts, slackText, teamsFacts } = sent(
      order({ buyer: 'Müller & Söhne GmbH', product: 'شركة الخليج 😀 × 2', total: '1.234,00 €' }),
    );
    expect(slackFacts.slice(0, 3)).toEqual(['Müller & Söhne GmbH', 'شركة الخليج 😀 × 2', '1.234,00 €']);
    expect(slackText).toBe('New order from Müller &amp; Söhne GmbH: شركة الخليج 😀 × 2, 1.234,00 €');
    expect(slackTextMarkup(slackText)).toEqual([]);
    // Teams would read "&" as the start of an entity: a look-alike.
    expect(teamsFacts.slice(0, 3)).toEqual(['Müller ＆ Söhne GmbH', 'شركة الخليج 😀 × 2', '1.234,00 €']);
  });
  it('cleans and caps an unknown purchase type, which the headline carries as the marketplace sent it', () => {
    // The wire model keeps an event type it does not know (tolerant reader) and purchaseTypeLabel
    // splits it into words as it came: marketplace text that skips chatText.
    const purchaseType =
      '[Pay now](https://evil.example) **Urgent** <at>Finance</at> {{DATE(2017-02-14T06:00:00Z)}}';
    const o = order({ purchaseType });
    const slack = slackMessage(o) as { text: string; blocks: { text?: { text: string } }[] };
    const card = (teamsMessage(o) as { attachments: { content: { body: { text?: string }[] } }[] })
      .attachments[0]?.content;
    expect(slackPlainMarkup(slack.blocks[0]?.text?.text ?? '')).toEqual([]);
    expect(slackTextMarkup(slack.text)).toEqual([]);
    expect(teamsMarkup(card?.body[0]?.text ?? '')).toEqual([]);
    // Slack's header block takes at most 150 characters.
    const long = slackMessage(order({ purchaseType: 'Trial'.repeat(100) })) as {
      blocks: { text?: { text: string } }[];
    };
    expect(Array.from(long.blocks[0]?.text?.text ?? '').length).toBeLessThanOrEqual(NAME_MAX);
  });

  it("makes no :shortcode: in Slack's fallback text from a name ending in one and the text's own colon", () => {
    // Each piece is cleaned alone; "from Acme :rotating_light" + ": " makes ":rotating_light:".
    const { slackText } = sent(order({ buyer: 'Acme :rotating_light' }));
    expect(slackTextMarkup(slackText)).toEqual([]);
  });

  it('makes no www. address when the label after www. starts with a digit (GFM links "www.163")', () => {
    // A dot before a digit stays (a total: "1.234,00"), so "www.163.com" needs the rule for www.
    for (const buyer of ['www.163.com', 'see www.1evil.example']) {
      const { slackFacts, slackText, teamsFacts } = sent(order({ buyer }));
      expect(slackPlainMarkup(slackFacts[0] ?? '')).toEqual([]);
      expect(slackTextMarkup(slackText)).toEqual([]);
      expect(teamsMarkup(teamsFacts[0] ?? '')).toEqual([]);
    }
  });
});

import { describe, expect, it } from 'vitest';

import { DateTime } from 'luxon';

import { ZERO_AFTER_CALLING_CODE } from '../../nodes/shared/trunkZero.generated';
import { asText, checkAttachmentUrl, normalizePhoneNumber, quoted } from '../../nodes/shared/validation';
import { trunkZeroTable } from '../../scripts/phone-trunk-table';

describe('normalizePhoneNumber', () => {
	it.each([
		['+14155550123', '+14155550123'],
		['+1 (415) 555-0123', '+14155550123'],
		['0049 151 2345 6789', '+4915123456789'],
		['+44.20.7946.0958', '+442079460958'],
		[' +49 [151] 234-567 ', '+49151234567'],
		['+1234567', '+1234567'], // 7 digits: the shortest E.164 allows here
		['+123456789012345', '+123456789012345'], // 15 digits: the longest
		// The trunk "(0)" is dialled only inside the country, never after its code.
		['+44 (0) 20 7946 0958', '+442079460958'],
		['+44(0)2079460958', '+442079460958'],
		['0044 ( 0 ) 20 7946 0958', '+442079460958'],
		['+49 (0) 151 2345678', '+491512345678'],
		// "[0]" means what "(0)" means.
		['+44 [0] 20 7946 0958', '+442079460958'],
		// A 0 opening the national part: the trunk prefix where the numbering plan dials it only at
		// home (Germany, Britain, France, Switzerland, Japan), part of the number in Italy.
		['+49 (0151) 2345678', '+491512345678'],
		['0049 0151 2345678', '+491512345678'],
		['+44 020 7946 0958', '+442079460958'],
		['+33 06 12 34 56 78', '+33612345678'],
		['+41 078 123 45 67', '+41781234567'],
		['+81 090 1234 5678', '+819012345678'],
		['+39 06 6982 1234', '+390669821234'],
		['0039 06 6982 1234', '+390669821234'],
		['+39 333 123 4567', '+393331234567'],
		// Only right after the country code is a bracketed 0 the trunk mark; elsewhere it is a digit.
		['+1 415 (0) 555 0123', '+141505550123'],
		['+44 20 [0]7946 0958', '+442007946 0958'.replace(' ', '')],
		// A written trunk mark is the only trunk 0: a 0 after it stays (the country's rule takes none).
		['+49 (0) 0151 2345678', '+4901512345678'],
		// As numbers are copied from word processors, spreadsheets and phones: an en dash, direction
		// marks around the number, a zero-width space, a no-break space.
		['+1 415\u2013555\u20130100', '+14155550100'],
		['\u202a+49 151 1234567\u202c', '+491511234567'],
		['+49 151 1234567\u200b', '+491511234567'],
		['+49\u00a0151\u00a01234567', '+491511234567'],
		['+44 (\u200b0) 20 7946 0958', '+442079460958'],
	])('accepts %j as %j', (raw, expected) => {
		expect(normalizePhoneNumber(raw)).toEqual({ ok: true, phone: expected });
	});

	it('the committed table is what libphonenumber-js gives (npm run phone-table)', () => {
		expect(ZERO_AFTER_CALLING_CODE).toEqual(trunkZeroTable());
	});

	it.each([
		'14155550123', // no + and no 00: the country code cannot be assumed
		'+0123456789', // first digit must be 1-9
		'+123456', // 6 digits
		'+1234567890123456', // 16 digits
		'+1415555O123', // a letter O
		'+',
		'',
		'00',
		'+1 415 555 0123 ext 4',
		'++14155550123',
		'\uff0b14155550123', // a full-width plus: only 0-9 and + are read
		'+\uff11\uff14\uff11\uff15\uff15\uff15\uff15\uff10\uff11\uff12\uff13', // full-width digits
		'(0) 20 7946 0958', // no country code: the (0) is not dropped, and the number is not E.164
	])('refuses %j', (raw) => {
		expect(normalizePhoneNumber(raw)).toMatchObject({ ok: false, problem: expect.stringMatching(/not a phone number in E\.164 format/) });
	});
});

describe('checkAttachmentUrl', () => {
	it('keeps the URL exactly as written', () => {
		expect(checkAttachmentUrl('https://cdn.example.com/files/My%20Invoice.pdf')).toEqual({ ok: true, url: 'https://cdn.example.com/files/My%20Invoice.pdf' });
		expect(checkAttachmentUrl(' https://example.com ')).toEqual({ ok: true, url: 'https://example.com' });
	});

	it.each(['photo.jpeg', 'photo.JPG', 'a.png', 'v.mp4', 'v.3gp', 'd.pdf', 'd.doc', 'd.xls', 'd.ppt', 'd.txt', 'a.mp3', 'a.aac', 'a.m4a', 'a.ogg'])(
		'accepts the part 2.8 type %s',
		(name) => {
			expect(checkAttachmentUrl(`https://example.com/x/${name}`).ok).toBe(true);
		},
	);

	it('leaves the file type to the service (spec 7, condition 9): any extension, or none', () => {
		expect(checkAttachmentUrl('https://cdn.example.com/download?id=42').ok).toBe(true);
		expect(checkAttachmentUrl('https://cdn.example.com/files/report.v2').ok).toBe(true);
		expect(checkAttachmentUrl('https://example.com/anim.gif')).toEqual({ ok: true, url: 'https://example.com/anim.gif' });
		expect(checkAttachmentUrl('https://example.com/report.docx').ok).toBe(true);
	});

	it.each([
		['ftp://example.com/a.pdf', /https:\/\/ or http:\/\//],
		['file:///etc/passwd', /https:\/\/ or http:\/\//],
		['not a url', /not a URL/],
	])('refuses %s', (url, problem) => {
		const check = checkAttachmentUrl(url);
		expect(check.ok).toBe(false);
		if (!check.ok) expect(check.problem).toMatch(problem);
	});
});

describe('asText', () => {
	it('turns values from expressions into text and refuses objects', () => {
		expect(asText('a')).toBe('a');
		expect(asText(12)).toBe('12');
		expect(asText(false)).toBe('false');
		expect(asText(null)).toBe('');
		expect(asText(undefined)).toBe('');
		expect(asText({ a: 1 })).toBeUndefined();
		expect(asText(['a'])).toBeUndefined();
	});

	it('refuses NaN and Infinity (a broken expression), keeps finite numbers', () => {
		expect(asText(Number.NaN)).toBeUndefined();
		expect(asText(Number.POSITIVE_INFINITY)).toBeUndefined();
		expect(asText(Number.NEGATIVE_INFINITY)).toBeUndefined();
		expect(asText(-0.5)).toBe('-0.5');
		expect(asText(1e21)).toBe('1e+21');
	});

	it('sends dates ({{ $now }}, Date) as ISO text', () => {
		expect(asText(new Date('2026-11-21T10:00:00Z'))).toBe('2026-11-21T10:00:00.000Z');
		expect(asText(new Date('nope'))).toBeUndefined();
		expect(asText(DateTime.fromISO('2026-11-21T10:00:00.000+01:00', { setZone: true }))).toBe('2026-11-21T10:00:00.000+01:00');
	});
});

describe('quoted', () => {
	it('keeps short values whole and cuts long ones', () => {
		expect(quoted('abc')).toBe('"abc"');
		expect(quoted('x'.repeat(100_000))).toBe(`"${'x'.repeat(60)}…" (100000 characters)`);
	});
});

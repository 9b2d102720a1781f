import { describe, expect, it } from "vitest";
import { html, jsonForScript } from "../../../functions/pages/shared/html";

describe("page HTML", () => {
  it("escapes every value put into it, but not HTML made by itself", () => {
    const name = `<script>alert("x")</script> & 'y'`;
    expect(html`<p title="${name}">${name}</p>`.text).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;</p>',
    );
    expect(html`<div>${html`<b>${"a<b"}</b>`}</div>`.text).toBe("<div><b>a&lt;b</b></div>");
    expect(html`${["<i>", html`<br>`]}${undefined}${null}${false}${0}`.text).toBe("&lt;i&gt;<br>0");
  });

  it("writes JSON a script element cannot be closed by, which parses back the same", () => {
    const value = { a: "</script><script>alert(1)</script>", b: "&amp; \u2028\u2029", c: [1, null] };
    const written = jsonForScript(value).text;
    expect(written).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(written)).toEqual(value);
  });
});

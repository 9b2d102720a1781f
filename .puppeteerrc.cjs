// puppeteer comes in only as @axe-core/puppeteer's peer: the tests drive @sparticuz/chromium's browser with
// puppeteer-core, so puppeteer's own browser is never downloaded (nothing is fetched at install or run time).
module.exports = { skipDownload: true };

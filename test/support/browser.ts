import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Browser, Builder, By, until, type WebDriver, type WebElement } from 'selenium-webdriver';
import chrome from 'selenium-webdriver/chrome.js';

/**
 * A real browser for the web pages' tests: Debian's Chromium, headless, driven through Debian's
 * chromedriver. Both paths are given, so selenium-manager never runs (it would download a
 * browser). Two widths: a desktop (1280 px) and a phone (375 px).
 */

export const CHROMIUM = process.env.HELMCREW_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMEDRIVER = process.env.HELMCREW_TEST_CHROMEDRIVER ?? '/usr/bin/chromedriver';

export type BrowserWidth = 1280 | 375;

export interface TestBrowser {
  driver: WebDriver;
  open(url: string): Promise<void>;
  /** The page's visible text. */
  text(): Promise<string>;
  /** A cookie's value on the current site, or undefined. */
  cookie(name: string): Promise<string | undefined>;
  /** The current URL. */
  url(): Promise<string>;
  /** Waits for an element (CSS selector) and returns it. */
  find(css: string, timeoutMs?: number): Promise<WebElement>;
  click(css: string): Promise<void>;
  type(css: string, text: string): Promise<void>;
  /** Waits until the page's text contains `text`. */
  waitForText(text: string, timeoutMs?: number): Promise<void>;
  screenshot(path: string): Promise<void>;
  quit(): Promise<void>;
}

export async function startBrowser(width: BrowserWidth = 1280): Promise<TestBrowser> {
  const options = new chrome.Options().setChromeBinaryPath(CHROMIUM);
  options.addArguments(
    '--headless=new',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--no-first-run',
    `--window-size=${Math.max(width, 800)},900`,
  );
  // A window cannot be narrower than ~500 px: a phone's width is emulated, as DevTools does.
  // chromedriver's own shape (`deviceMetrics`); the typings know an older one.
  if (width < 800)
    options.setMobileEmulation({ deviceMetrics: { width, height: 812, pixelRatio: 2 } } as unknown as Parameters<typeof options.setMobileEmulation>[0]);
  const service = new chrome.ServiceBuilder(CHROMEDRIVER);
  const driver = await new Builder().forBrowser(Browser.CHROME).setChromeOptions(options).setChromeService(service).build();
  const find = async (css: string, timeoutMs = 10_000) =>
    driver.wait(until.elementLocated(By.css(css)), timeoutMs, `no element ${css} on ${await driver.getCurrentUrl()}`);
  const text = async () => driver.findElement(By.css('body')).getText();
  return {
    driver,
    open: (url) => driver.get(url),
    text,
    url: () => driver.getCurrentUrl(),
    cookie: async (name) =>
      (
        await driver
          .manage()
          .getCookie(name)
          .catch(() => undefined)
      )?.value,
    find,
    click: async (css) => (await find(css)).click(),
    type: async (css, value) => (await find(css)).sendKeys(value),
    waitForText: async (wanted, timeoutMs = 10_000) => {
      await driver
        .wait(async () => (await text().catch(() => '')).includes(wanted), timeoutMs, `page never said "${wanted}"`)
        .catch(async (error: unknown) => {
          throw new Error(`${(error as Error).message}; it says: ${(await text().catch(() => '')).slice(0, 500)} (${await driver.getCurrentUrl()})`);
        });
    },
    screenshot: async (path) => {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, await driver.takeScreenshot(), 'base64');
    },
    quit: () => driver.quit(),
  };
}

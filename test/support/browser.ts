import { Builder, type WebDriver } from 'selenium-webdriver';
import chrome from 'selenium-webdriver/chrome.js';

/** Headless Chromium through /usr/bin/chromedriver, as wide as a phone (375 px) unless told otherwise. */
export async function headlessChromium(width = 375, height = 900): Promise<WebDriver> {
  const options = new chrome.Options();
  options.setChromeBinaryPath('/usr/bin/chromium');
  options.addArguments('--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage');
  // A headless window is at least 500 px wide: the phone's width comes from device emulation.
  // chromedriver reads `deviceMetrics` (selenium's types say otherwise).
  options.setMobileEmulation({ deviceMetrics: { width, height, pixelRatio: 1 } } as unknown as Parameters<chrome.Options['setMobileEmulation']>[0]);
  return new Builder().forBrowser('chrome').setChromeOptions(options).setChromeService(new chrome.ServiceBuilder('/usr/bin/chromedriver')).build();
}

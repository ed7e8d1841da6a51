// Starts the page's wasm. trunk's own loader would be an inline script,
// which the Content-Security-Policy refuses, so this file does its job.
import init from "./fencelab-web.js";

// The theme the learner chose (storage.rs keeps it under this key), applied
// before the app starts; none follows the system's colour scheme.
try {
  const theme = localStorage.getItem("fencelab:theme");
  if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
} catch (_) {
  // No storage: the system's colour scheme.
}

init({ module_or_path: "./fencelab-web_bg.wasm" }).catch((error) => {
  const boot = document.getElementById("boot");
  if (boot) boot.textContent = `The playground could not start: ${error}`;
});

// The service worker keeps a copy of the app so a reload works offline.
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("./sw.js").catch(() => {});
}

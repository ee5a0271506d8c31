// The browser's time zone, offered, never stored unasked: until a person has
// chosen a zone, every page shows a proposal they confirm (or decline) with a
// click; the settings page says which zone the browser reports.
// A file of its own because the Content Security Policy forbids inline scripts.
(function () {
  var zone;
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch (error) {
    return;
  }
  // A place name only ("Europe/Lisbon"): never an offset or an Etc/GMT±N zone,
  // which would be wrong after the next summer-time change.
  if (!zone || zone.indexOf("/") < 0 || zone.indexOf("Etc/") === 0) return;
  var shown = zone.replace(/_/g, " ");

  var proposal = document.getElementById("zone-proposal");
  if (proposal && proposal.getAttribute("data-current") !== zone) {
    proposal.querySelector("input[name=time_zone][data-browser]").value = zone;
    proposal.querySelectorAll("[data-zone-name]").forEach(function (node) { node.textContent = shown; });
    proposal.hidden = false;
  }
  var hint = document.querySelector("[data-zone-hint]");
  if (hint) {
    hint.querySelector("[data-zone-name]").textContent = shown;
    hint.hidden = false;
  }
})();

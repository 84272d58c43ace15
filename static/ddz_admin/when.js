/* Admin forms: a fieldset whose class is "when-<field>-<value>" shows only while the form's
   <field> select holds <value> (a room's variant, an event's format). Every fieldset shows
   while nothing is chosen, and without JavaScript; the server validates what is submitted. */
(function () {
  "use strict";
  function update(form, select) {
    var prefix = "when-" + select.name + "-";
    form.querySelectorAll('fieldset[class*="' + prefix + '"]').forEach(function (fieldset) {
      var wanted = Array.prototype.some.call(fieldset.classList, function (name) {
        return name === prefix + select.value;
      });
      fieldset.hidden = select.value !== "" && !wanted;
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("form").forEach(function (form) {
      var names = new Set();
      form.querySelectorAll('fieldset[class*="when-"]').forEach(function (fieldset) {
        fieldset.classList.forEach(function (name) {
          var match = /^when-([a-z_]+)-/.exec(name);
          if (match) names.add(match[1]);
        });
      });
      names.forEach(function (name) {
        var select = form.querySelector('select[name="' + name + '"]');
        if (!select) return;
        select.addEventListener("change", function () { update(form, select); });
        update(form, select);
      });
    });
  });
})();

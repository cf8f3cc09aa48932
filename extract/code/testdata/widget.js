// Widgets.
import { h } from "./h.js";

/**
 * A widget.
 */
export default class Widget {
  constructor(el) {
    this.el = el;
  }

  render() {
    return h("div");
  }

  static create() {
    return new Widget(null);
  }

  onClick = () => {
    this.render();
  };
}

export function mount(w, root) {
  root.append(w.render());
}

const helper = function () {
  return 1;
};

let a = 1, b = 2;

function* ids() {
  yield 1;
}

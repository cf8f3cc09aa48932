import React from "react";

/** Props of App. */
interface Props {
  title: string;
}

/** The application. */
export function App({ title }: Props) {
  return <h1>{title}</h1>;
}

export class Counter extends React.Component<Props> {
  render() {
    return <span>{this.props.title}</span>;
  }

  /** Handles a click. */
  onClick = (): void => {
    this.setState({});
  };
}

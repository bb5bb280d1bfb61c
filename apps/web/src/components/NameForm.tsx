import { type FormEvent, useState } from 'react';

/** A one-field form that names something new (a key, an agent); the field empties once `onSubmit` succeeds. */
export function NameForm(props: {
  label: string;
  placeholder: string;
  maxLength: number;
  button: string;
  onSubmit: (name: string) => Promise<boolean>;
}) {
  const [name, setName] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (await props.onSubmit(name.trim())) setName('');
  };
  return (
    <form className="inline" onSubmit={(e) => void submit(e)}>
      <label>
        {props.label}{' '}
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder={props.placeholder}
          maxLength={props.maxLength}
          required
        />
      </label>
      <button type="submit">{props.button}</button>
    </form>
  );
}
